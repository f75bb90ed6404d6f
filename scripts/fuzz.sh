#!/usr/bin/env bash
# Runs every fuzz target of a package for a budget: scripts/fuzz.sh PKG
# FUZZTIME MINIMIZETIME (make fuzz, make fuzz-smoke). The target list is
# computed first, so a failing `go test -list` or an empty list fails the
# run instead of fuzzing nothing.
#
# A duration budget (30s) ends on a wall-clock deadline, and Go's fuzz
# coordinator can report that deadline itself as a failure, "context
# deadline exceeded", with no failing input (golang/go#75804, fixed in Go
# 1.27). Such a run used its whole budget and found nothing, so it counts
# as completed, and says so; any other failure, or a failing input written
# to the corpus, fails. A count budget (5000x) has no deadline at all.
#
# FUZZTIME_<Target> (e.g. FUZZTIME_FuzzWorld=50x) overrides the budget of
# one target: a FuzzWorld input is a whole simulated world.
set -euo pipefail
pkg=$1 budget=$2 minimize=$3
targets=$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)
if [ -z "$targets" ]; then
  echo "no fuzz targets found in $pkg"
  exit 1
fi
corpus="$pkg/testdata/fuzz"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in $targets; do
  var="FUZZTIME_$t"
  budget=${!var:-$2}
  echo "fuzz $t ($budget)"
  before=$(ls "$corpus/$t" 2>/dev/null || true)
  if go test -run '^$' -fuzz "^$t\$" -fuzztime "$budget" -fuzzminimizetime "$minimize" "$pkg" 2>&1 | tee "$out"; then
    continue
  fi
  after=$(ls "$corpus/$t" 2>/dev/null || true)
  if [ "$before" = "$after" ] && grep -qx '[[:space:]]*context deadline exceeded' "$out" &&
    ! grep -q 'Failing input written' "$out"; then
    echo "fuzz $t: Go's fuzz coordinator reported its own -fuzztime deadline (golang/go#75804); no failing input was written: the budget was spent, counted as completed"
    continue
  fi
  exit 1
done
