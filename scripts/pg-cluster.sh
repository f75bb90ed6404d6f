#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and local runs of Core on
# PostgreSQL.
#
#   scripts/pg-cluster.sh start [DIR]   initdb (first time) and start it
#   scripts/pg-cluster.sh stop [DIR]    stop it (the data stays in DIR)
#   scripts/pg-cluster.sh dsn [DIR]     print its DSN
#   scripts/pg-cluster.sh status [DIR]  print its DSN if it runs; exit 1 if not
#   scripts/pg-cluster.sh bin           print the directory of initdb and pg_ctl
#
# DIR defaults to $PG_CLUSTER_DIR or out/pg (under /tmp when the postgres
# user cannot reach it). The cluster listens only on a
# Unix socket in DIR/sock (no TCP), trusts local connections, and runs as
# the `postgres` user when started by root (initdb refuses root). `start`
# prints the DSN as its last line; use it as TURNSTILE_PG_DSN or
# `turnstile core -store`:
#
#   export TURNSTILE_PG_DSN=$(scripts/pg-cluster.sh dsn)
#
# The server binaries are found on PATH, in $PG_BIN, or in the newest
# /usr/lib/postgresql/<version>/bin (Debian's postgresql package).
set -euo pipefail

cmd=${1:-}
dir=${2:-${PG_CLUSTER_DIR:-out/pg}}
port=${PG_CLUSTER_PORT:-5432}

usage() {
	echo "usage: $0 start|stop|dsn|status [DIR] or $0 bin" >&2
	exit 2
}

find_bin() {
	if [ -n "${PG_BIN:-}" ]; then
		echo "$PG_BIN"
		return
	fi
	if command -v initdb >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return
	fi
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
	if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
		echo "$0: no initdb: install PostgreSQL (apt-get install postgresql) or set PG_BIN" >&2
		exit 1
	fi
	echo "$d"
}

# as_owner runs a server binary as the cluster's owner.
as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

if [ "$cmd" = bin ]; then
	find_bin
	exit 0
fi
dir=$(realpath -m "$dir")
# Run by root, the server runs as postgres, which must reach DIR: when a
# parent directory is closed to it (a checkout under /root), the cluster
# lives in a directory of its own under /tmp named after DIR instead.
if [ "$(id -u)" = 0 ]; then
	anc=$dir
	while [ ! -e "$anc" ]; do anc=$(dirname "$anc"); done
	if ! runuser -u postgres -- test -x "$anc"; then
		dir=/tmp/turnstile-pg-$(printf %s "$dir" | sha256sum | cut -c1-12)
	fi
fi
if [ "$cmd" = start ]; then
	mkdir -p "$dir"
fi
data=$dir/data
sock=$dir/sock
user=$(if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi)
dsn="postgres://$user@/postgres?host=$sock&port=$port&sslmode=disable"

case "$cmd" in
start)
	bin=$(find_bin)
	mkdir -p "$sock"
	if [ "$(id -u)" = 0 ]; then
		chown postgres: "$dir" "$sock"
	fi
	if [ ! -f "$data/PG_VERSION" ]; then
		as_owner "$bin/initdb" -D "$data" -U "$user" --auth=trust --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 || {
			cat "$dir/initdb.log" >&2
			exit 1
		}
	fi
	if ! as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		as_owner "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 start \
			-o "-c listen_addresses='' -c unix_socket_directories='$sock' -p $port -c fsync=on -c max_connections=200" >/dev/null || {
			tail -20 "$dir/server.log" >&2
			exit 1
		}
	fi
	echo "$dsn"
	;;
stop)
	bin=$(find_bin)
	if [ -f "$data/PG_VERSION" ]; then
		as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
	fi
	;;
dsn)
	echo "$dsn"
	;;
status)
	bin=$(find_bin)
	if [ -f "$data/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
		echo "$dsn"
	else
		echo "$0: no cluster runs in $dir (start one: $0 start)" >&2
		exit 1
	fi
	;;
*)
	usage
	;;
esac
