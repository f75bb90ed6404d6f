package main

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/turnstile-sim/turnstile/wire"
)

// freshSeedMax bounds a fresh first seed, leaving room for any campaign
// after it (First+Count never overflows).
const freshSeedMax = 1 << 62

// freshSeed draws a campaign's first seed from the operating system.
func freshSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("turnstile: the operating system gave no randomness: " + err.Error())
	}
	return binary.LittleEndian.Uint64(b[:])%freshSeedMax + 1
}

// buildCommit is the VCS revision the binary was built from, as the Go
// toolchain stamped it ("-dirty" when the tree had local changes), or
// "unknown" (go run and go test do not stamp it). It never looks at the
// working directory: a binary reports what it is, wherever it runs.
func buildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return commitOf(info)
}

func commitOf(info *debug.BuildInfo) string {
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

const usageVersion = `usage: turnstile version

Prints the module version, the commit the binary was built from, the Go
toolchain and the wire protocol version it speaks.

` + exitCodes

func (sh *shell) cmdVersion(args []string) int {
	fs := sh.newFlags("version", usageVersion)
	if code, ok := sh.parse(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return sh.usageError("version", fmt.Errorf("%w: %v", ErrArgs, fs.Args()))
	}
	version := "(devel)"
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		version = info.Main.Version
	}
	fmt.Fprintf(sh.stdout, "turnstile %s\ncommit   %s\ngo       %s\nwire     %s\n",
		version, sh.commit(), runtime.Version(), wire.Version)
	return exitOK
}
