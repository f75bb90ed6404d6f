package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/turnstile-sim/turnstile/core/api"
)

const usageKey = `usage: turnstile core key add [-data DIR | -store URL | -core URL -operator-token-file FILE] <name>
       turnstile core key list [-data DIR | -store URL | -core URL -operator-token-file FILE]
       turnstile core key revoke [-data DIR | -store URL | -core URL -operator-token-file FILE] <key-id>

API keys authenticate the Agents API under /v1 (Authorization: Bearer
<key>); the operator token is no API key, and an API key opens no operator
route (/core/v1). add issues a key named <name> and prints its secret once
on stdout (256 bits of randomness with the prefix tsk_), its ID on
stderr; only the secret's SHA-256 is stored. list shows ID, name, status
and times, never a secret. revoke retires a key by ID: a running Core
refuses it from its next request on (401 invalid_api_key). Flags may also
follow the name or ID.

The store: add initialises it when -data does not exist yet and says so on
stderr; list and revoke need an existing store: pointed at a directory
that does not exist, or holds no core.db, they create nothing and exit 5.
An unknown or already revoked key, or a bad name, exits 1 and changes
nothing.

` + usageAdminMode + `
` + exitCodes

// ErrKeyArgs is a key command with the wrong arguments.
var ErrKeyArgs = errors.New("key takes add <name>, list, or revoke <key-id>")

func (sh *shell) cmdKey(args []string) int {
	if len(args) == 0 {
		return sh.usageError("core key", ErrKeyArgs)
	}
	verb := args[0]
	fs, f := sh.coreFlagSet("core key "+verb, usageKey)
	var admin adminFlags
	addAdminFlags(fs, &admin)
	if code, ok := sh.parse(fs, args[1:]); !ok {
		return code
	}
	rest := fs.Args()
	if len(rest) > 0 { // flags after the name or ID
		if code, ok := sh.parse(fs, rest[1:]); !ok {
			return code
		}
		rest = append([]string{rest[0]}, fs.Args()...)
	}
	want := map[string]int{"add": 1, "list": 0, "revoke": 1}
	n, known := want[verb]
	if !known || len(rest) != n {
		return sh.usageError("core key", ErrKeyArgs)
	}
	if verb == "add" {
		if err := api.CheckKeyName(rest[0]); err != nil { // before a store is created for it
			fmt.Fprintf(sh.stderr, "turnstile core key add: %v\n", err)
			return exitFail
		}
	}
	client, err := adminMode(fs, &admin)
	if err != nil {
		return sh.usageError("core key", err)
	}
	if client != nil {
		if err := sh.keyOverAPI(client, verb, rest); err != nil {
			fmt.Fprintf(sh.stderr, "turnstile core key %s: %v\n", verb, err)
			return exitFail
		}
		return exitOK
	}
	if err := checkStoreFlags(f); err != nil {
		return sh.usageError("core key", err)
	}
	st, created, err := openCoreStore(f, verb == "add")
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile core key %s: %v\n", verb, err)
		var check *storeCheckError
		switch {
		case errors.Is(err, ErrNoStore):
			fmt.Fprintf(sh.stderr, "(create a store with 'turnstile core key add NAME -data DIR' (or -store URL); check -data or -store for a typo)\n")
			return exitNoStore
		case errors.As(err, &check):
			fmt.Fprintf(sh.stderr, "(create a store with 'turnstile core key add NAME -data DIR' (or -store URL); check -data or -store for a typo)\n")
			return exitTool
		}
		return exitFail
	}
	defer st.Close()
	if created {
		fmt.Fprintf(sh.stderr, "turnstile core key add: created a new store in %s\n", storeLabel(f, st))
	}
	keys := api.NewKeys(st)
	ctx := context.Background()
	switch verb {
	case "add":
		var secret string
		var key api.APIKey
		if secret, key, err = keys.Add(ctx, rest[0], time.Now()); err == nil {
			fmt.Fprintf(sh.stderr, "API key %s (%s) added; its secret is printed once below, store it now\n", key.ID, key.Name)
			fmt.Fprintln(sh.stdout, secret)
		}
	case "list":
		err = sh.keyList(ctx, keys)
	case "revoke":
		if err = keys.Revoke(ctx, rest[0], time.Now()); err == nil {
			fmt.Fprintf(sh.stderr, "API key %s revoked\n", rest[0])
		}
	}
	if err != nil {
		fmt.Fprintf(sh.stderr, "turnstile core key %s: %v\n", verb, err)
		return exitFail
	}
	return exitOK
}

func (sh *shell) keyList(ctx context.Context, keys *api.Keys) error {
	ks, err := keys.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(sh.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tCREATED\tREVOKED")
	for _, k := range ks {
		status, revoked := "active", "-"
		if k.Revoked() {
			status, revoked = "revoked", k.RevokedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, status, k.CreatedAt.UTC().Format(time.RFC3339), revoked)
	}
	return tw.Flush()
}
