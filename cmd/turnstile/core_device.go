package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
)

// credentialPrefix marks a device credential, so it is recognisable in a
// leak (and redacted in logs).
const credentialPrefix = api.DeviceCredentialPrefix

const usageDevice = `usage: turnstile core device add [-data DIR | -store URL | -core URL -operator-token-file FILE] <id>
       turnstile core device list [-data DIR | -store URL | -core URL -operator-token-file FILE]
       turnstile core device revoke [-data DIR | -store URL | -core URL -operator-token-file FILE] <id>

add enrols a device and prints its new credential once on stdout (256 bits
of randomness with the prefix tsd_); only its SHA-256 is stored. revoke
retires the device: a running Core closes its live connection with code 4001
and refuses it from then on. Flags may also follow the id.

The store: add initialises it when -data does not exist yet (the first step
before Core's first start) and says so on stderr; list and revoke only read
or change existing records, so they need an existing store: pointed at a
directory that does not exist, or holds no core.db, they create nothing and
exit 5.

` + usageAdminMode + `
` + exitCodes

// ErrDeviceArgs is a device command with the wrong arguments.
var ErrDeviceArgs = errors.New("device takes add <id>, list, or revoke <id>")

// ErrNoStore is a command that needs an existing store pointed at a data
// directory that does not exist or holds none.
var ErrNoStore = errors.New("no Core store there")

// storeExists reports whether dir holds Core's store; err says why not.
func storeExists(dir string) (bool, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("-data %s: %w: the directory does not exist", dir, ErrNoStore)
	case err != nil:
		return false, fmt.Errorf("-data %s: %w", dir, err)
	case !fi.IsDir():
		return false, fmt.Errorf("-data %s: %w: not a directory", dir, ErrNoStore)
	}
	if _, err := os.Stat(filepath.Join(dir, sqlitestore.FileName)); errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("-data %s: %w: the directory holds no %s", dir, ErrNoStore, sqlitestore.FileName)
	} else if err != nil {
		return false, fmt.Errorf("-data %s: %w", dir, err)
	}
	return true, nil
}

// newCredential returns a fresh device credential and its SHA-256.
func newCredential() (string, [32]byte, error) { return api.NewDeviceCredential() }

func (sh *shell) cmdDevice(args []string) int {
	if len(args) == 0 {
		return sh.usageError("core device", ErrDeviceArgs)
	}
	verb := args[0]
	fs, f := sh.coreFlagSet("core device "+verb, usageDevice)
	var admin adminFlags
	addAdminFlags(fs, &admin)
	if code, ok := sh.parse(fs, args[1:]); !ok {
		return code
	}
	rest := fs.Args()
	if len(rest) > 0 { // flags after the id
		if code, ok := sh.parse(fs, rest[1:]); !ok {
			return code
		}
		rest = append([]string{rest[0]}, fs.Args()...)
	}
	want := map[string]int{"add": 1, "list": 0, "revoke": 1}
	n, known := want[verb]
	if !known || len(rest) != n {
		return sh.usageError("core device", ErrDeviceArgs)
	}
	client, err := adminMode(fs, &admin)
	if err != nil {
		return sh.usageError("core device", err)
	}
	if client != nil {
		if err := sh.deviceOverAPI(client, verb, rest); err != nil {
			fmt.Fprintf(sh.stderr, "turnstile core device %s: %v\n", verb, err)
			return exitFail
		}
		return exitOK
	}
	if err := checkStoreFlags(f); err != nil {
		return sh.usageError("core device", err)
	}
	st, created, err := openCoreStore(f, verb == "add")
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile core device %s: %v\n", verb, err)
		var check *storeCheckError
		switch {
		case errors.Is(err, ErrNoStore):
			fmt.Fprintf(sh.stderr, "(create a store with 'turnstile core device add ID -data DIR' (or -store URL); check -data or -store for a typo)\n")
			return exitNoStore
		case errors.As(err, &check):
			fmt.Fprintf(sh.stderr, "(create a store with 'turnstile core device add ID -data DIR' (or -store URL); check -data or -store for a typo)\n")
			return exitTool
		}
		return exitFail
	}
	defer st.Close()
	if created {
		fmt.Fprintf(sh.stderr, "turnstile core device add: created a new store in %s\n", storeLabel(f, st))
	}
	switch verb {
	case "add":
		err = sh.deviceAdd(st, rest[0])
	case "list":
		err = sh.deviceList(st)
	case "revoke":
		err = st.RevokeDevice(rest[0], time.Now())
		if err == nil {
			fmt.Fprintf(sh.stderr, "device %s revoked\n", rest[0])
		}
	}
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile core device %s: %v\n", verb, err)
		return exitFail
	}
	return exitOK
}

func (sh *shell) deviceAdd(st server.Credentials, id string) error {
	cred, hash, err := newCredential()
	if err != nil {
		return err
	}
	if err := st.AddDevice(id, hash, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(sh.stderr, "device %s added; its credential is printed once below, store it now\n", id)
	fmt.Fprintln(sh.stdout, cred)
	return nil
}

func (sh *shell) deviceList(st server.Credentials) error {
	ds, err := st.Devices()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(sh.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tCREATED\tREVOKED")
	for _, d := range ds {
		status, revoked := "active", "-"
		if d.Revoked {
			status, revoked = "revoked", d.RevokedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.ID, status, d.CreatedAt.UTC().Format(time.RFC3339), revoked)
	}
	return tw.Flush()
}
