package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/turnstile-sim/turnstile/core/api"
)

// The device and key commands reach a running Core through its
// administration API (/core/v1, the operator token) when -core names it,
// and open the store directly otherwise: before Core's first start, or
// while it is stopped.

const usageAdminMode = `Where the command acts: with -core URL (or TURNSTILE_CORE_URL) it calls the
running Core's administration API under /core/v1 with the operator token
of -operator-token-file (TURNSTILE_OPERATOR_TOKEN_FILE), over https with
-ca-file (TURNSTILE_CA_FILE) when Core's certificate is from a private CA;
the running Core applies the change at once (a revoked device's connection
closes with 4001). Without -core it opens the store of -data or -store
directly, for a Core that is not running (the first enrolment before its
first start). -data or -store given on the command line always selects the
store; together with -core on the command line they are a usage error.
A refusal of Core's (unknown, duplicate, already revoked, bad name) exits 1
and changes nothing; so does a Core that cannot be reached.
`

// ErrStoreAndCore: -core with -data or -store on the command line.
var ErrStoreAndCore = errors.New("-core calls a running Core's API; -data and -store open a store directly: give one of them")

// adminFlags are the options of the API mode.
type adminFlags struct{ core, tokenFile, caFile string }

func addAdminFlags(fs *flag.FlagSet, a *adminFlags) {
	fs.StringVar(&a.core, "core", envDefault("TURNSTILE_CORE_URL", ""),
		"base URL of a running Core (http://127.0.0.1:8080, https://...): act through its administration API instead of the store (TURNSTILE_CORE_URL)")
	fs.StringVar(&a.tokenFile, "operator-token-file", envDefault("TURNSTILE_OPERATOR_TOKEN_FILE", ""),
		"file holding Core's operator token, with -core (TURNSTILE_OPERATOR_TOKEN_FILE)")
	fs.StringVar(&a.caFile, "ca-file", envDefault("TURNSTILE_CA_FILE", ""),
		"PEM CA certificates that vouch for Core's TLS certificate, with an https -core (TURNSTILE_CA_FILE)")
}

// adminMode decides where a device or key command acts: through Core's
// API (a client) or on the store (nil).
func adminMode(fs *flag.FlagSet, a *adminFlags) (*adminClient, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	storeGiven := given["data"] || given["store"]
	switch {
	case given["core"] && storeGiven:
		return nil, ErrStoreAndCore
	case a.core == "" || storeGiven:
		return nil, nil
	}
	u, err := url.Parse(a.core)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("-core %q: want Core's absolute http or https base URL", a.core)
	}
	token, err := readToken(a.tokenFile)
	if err != nil {
		return nil, err
	}
	hc, err := coreHTTPClient(a.caFile)
	if err != nil {
		return nil, err
	}
	if hc == nil {
		hc = &http.Client{}
	}
	hc.Timeout = 30 * time.Second
	return &adminClient{base: strings.TrimSuffix(a.core, "/"), token: token, hc: hc}, nil
}

// adminClient calls Core's administration routes.
type adminClient struct {
	base, token string
	hc          *http.Client
}

// adminRefusal is an error answer of Core's.
type adminRefusal struct {
	Status       int
	Code, Detail string
}

func (e *adminRefusal) Error() string {
	return fmt.Sprintf("Core answered %d %s: %s", e.Status, e.Code, e.Detail)
}

// call sends method path with body (nil: none) and decodes a 2xx answer
// into out.
func (c *adminClient) call(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	var untrusted *tls.CertificateVerificationError
	switch {
	case errors.As(err, &untrusted):
		return fmt.Errorf("Core's TLS certificate at %s cannot be verified (give the CA that signed it with -ca-file, TURNSTILE_CA_FILE, and a host the certificate lists): %w", c.base, err)
	case err != nil:
		return fmt.Errorf("cannot reach Core at %s (is it running? without -core the command opens the store directly): %w", c.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, api.BodyBytesMax))
	if err != nil {
		return fmt.Errorf("reading Core's answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct{ Error, Detail string }
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			if resp.StatusCode == http.StatusBadRequest && bytes.Contains(b, []byte(plainToTLSAnswer)) {
				return &adminRefusal{Status: resp.StatusCode, Code: "?", Detail: "Core serves TLS at this address: give -core as https://..."}
			}
			return &adminRefusal{Status: resp.StatusCode, Code: "?", Detail: "not Core's administration API at this URL"}
		}
		return &adminRefusal{Status: resp.StatusCode, Code: e.Error, Detail: e.Detail}
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("undecodable answer of Core's: %w", err)
	}
	return nil
}

// plainToTLSAnswer is what Go's TLS listener answers a plain HTTP
// request with (HTTP 400, text).
const plainToTLSAnswer = "Client sent an HTTP request to an HTTPS server"

// deviceOverAPI runs a device command against a running Core.
func (sh *shell) deviceOverAPI(c *adminClient, verb string, rest []string) error {
	switch verb {
	case "add":
		var out api.EnrolledJSON
		if err := c.call("POST", api.OperatorPrefix+"/devices", api.EnrolRequest{ID: rest[0]}, &out); err != nil {
			return err
		}
		fmt.Fprintf(sh.stderr, "device %s added; its credential is printed once below, store it now\n", out.ID)
		fmt.Fprintln(sh.stdout, out.Credential)
	case "list":
		var out struct{ Devices []api.DeviceJSON }
		if err := c.call("GET", api.OperatorPrefix+"/devices", nil, &out); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(sh.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATUS\tCREATED\tREVOKED\tCONNECTED")
		for _, d := range out.Devices {
			status, revoked := "active", "-"
			if d.Revoked {
				status = "revoked"
				if d.RevokedAt != nil {
					revoked = d.RevokedAt.UTC().Format(time.RFC3339)
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%t\n", d.ID, status, d.CreatedAt.UTC().Format(time.RFC3339), revoked, d.Connected)
		}
		return tw.Flush()
	case "revoke":
		var out api.RevokedJSON
		if err := c.call("POST", api.OperatorPrefix+"/devices/"+url.PathEscape(rest[0])+"/revoke", nil, &out); err != nil {
			return err
		}
		fmt.Fprintf(sh.stderr, "device %s revoked\n", out.ID)
	}
	return nil
}

// keyOverAPI runs a key command against a running Core.
func (sh *shell) keyOverAPI(c *adminClient, verb string, rest []string) error {
	switch verb {
	case "add":
		var out api.KeyJSON
		if err := c.call("POST", api.OperatorPrefix+"/keys", api.KeyRequest{Name: rest[0]}, &out); err != nil {
			return err
		}
		fmt.Fprintf(sh.stderr, "API key %s (%s) added; its secret is printed once below, store it now\n", out.ID, out.Name)
		fmt.Fprintln(sh.stdout, out.Secret)
	case "list":
		var out struct{ Keys []api.KeyJSON }
		if err := c.call("GET", api.OperatorPrefix+"/keys", nil, &out); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(sh.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tCREATED\tREVOKED")
		for _, k := range out.Keys {
			status, revoked := "active", "-"
			if k.Revoked && k.RevokedAt != nil {
				status, revoked = "revoked", k.RevokedAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, status, k.CreatedAt.UTC().Format(time.RFC3339), revoked)
		}
		return tw.Flush()
	case "revoke":
		var out api.KeyJSON
		if err := c.call("POST", api.OperatorPrefix+"/keys/"+url.PathEscape(rest[0])+"/revoke", nil, &out); err != nil {
			return err
		}
		fmt.Fprintf(sh.stderr, "API key %s revoked\n", out.ID)
	}
	return nil
}
