package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	coreapi "github.com/turnstile-sim/turnstile/core/api"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "turnstile test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// leaf issues a server certificate for 127.0.0.1 and localhost with the
// given serial, as PEM certificate and key.
func (ca *testCA) leaf(t *testing.T, serial int64) (certPEM, keyPEM []byte) {
	t.Helper()
	return ca.leafValid(t, serial, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
}

// leafValid is leaf valid from notBefore to notAfter.
func (ca *testCA) leafValid(t *testing.T, serial int64, notBefore, notAfter time.Time) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "turnstile core"},
		NotBefore: notBefore, NotAfter: notAfter,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder})
}

// writePair writes a leaf of serial to certFile and keyFile.
func (ca *testCA) writePair(t *testing.T, serial int64, certFile, keyFile string) {
	t.Helper()
	c, k := ca.leaf(t, serial)
	if err := os.WriteFile(certFile, c, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, k, 0o600); err != nil {
		t.Fatal(err)
	}
}

// tlsFiles writes the CA and a leaf of serial 2 into dir.
func (ca *testCA) tlsFiles(t *testing.T, dir string) (caFile, certFile, keyFile string) {
	t.Helper()
	caFile, certFile, keyFile = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "core.pem"), filepath.Join(dir, "core.key")
	if err := os.WriteFile(caFile, ca.pem, 0o600); err != nil {
		t.Fatal(err)
	}
	ca.writePair(t, 2, certFile, keyFile)
	return caFile, certFile, keyFile
}

// trusting is an HTTP transport that trusts ca only.
func (ca *testCA) trusting() *http.Transport {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
}

// servedSerial opens a new TLS connection to addr (trusting ca) and
// returns the serial of the certificate it is served.
func (ca *testCA) servedSerial(t *testing.T, addr string) int64 {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].SerialNumber.Int64()
}

// A daemon given Core's CA connects over wss and a Turn runs end to end;
// the same daemon without the CA refuses Core's certificate with a named
// fix and exits 1.
func TestCoreTLSDaemonOverWSS(t *testing.T) {
	dir, tokenFile, token, cred := setup(t)
	root := filepath.Dir(tokenFile)
	ca := newTestCA(t)
	caFile, certFile, keyFile := ca.tlsFiles(t, root)
	credFile := filepath.Join(root, "device.cred")
	if err := os.WriteFile(credFile, []byte(cred+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	core := startCore(t, dir, tokenFile, "-tls-cert", certFile, "-tls-key", keyFile)
	if !strings.HasPrefix(core.base, "https://") {
		t.Fatalf("core base %s, want https", core.base)
	}
	c := newAPIClient(t, core.base, dir, token)
	c.hc.Transport = ca.trusting()
	d := startDaemonProc(t, "-core", core.base, "-ca-file", caFile, "-device", "d1", "-credential-file", credFile)
	sid := c.session("synthetic", "synthetic-1")
	tid := c.submit(sid, "over tls")
	evs, err := c.events(tid, "")
	if err != nil || len(evs) == 0 || evs[len(evs)-1].Event != coreapi.EvTurnCompleted {
		t.Fatalf("turn over wss: %v %+v", err, evs)
	}
	if got := c.turn(tid); got.State != "completed" || !strings.Contains(got.Content, "over tls") {
		t.Fatalf("turn %+v", got)
	}
	if code := d.terminate(t); code != exitOK {
		t.Fatalf("daemon exit %d:\n%s", code, d.stderr.String())
	}
	// Plain HTTP to the TLS listener gets no API answer.
	if resp, err := http.Get("http" + strings.TrimPrefix(core.base, "https") + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Fatal("plain HTTP answered 200 on a TLS listener")
		}
	}

	var out, errOut bytes.Buffer
	code := run([]string{"daemon", "-core", core.base, "-device", "d1", "-credential-file", credFile, "-kinds", "synthetic"}, &out, &errOut)
	if code != exitFail || !strings.Contains(errOut.String(), "does not trust Core's TLS certificate") ||
		!strings.Contains(errOut.String(), "-ca-file") || strings.Contains(errOut.String(), cred) {
		t.Fatalf("daemon without the CA: exit %d\n%s", code, errOut.String())
	}
	// The administration commands reach it over https with the CA too.
	if code, list, errOut := runCLI("core", "device", "list", "-core", core.base, "-operator-token-file", tokenFile, "-ca-file", caFile); code != exitOK ||
		!strings.Contains(list, "d1") {
		t.Fatalf("device list over https: %d %q %q", code, list, errOut)
	}
	if code, _, errOut := runCLI("core", "device", "list", "-core", core.base, "-operator-token-file", tokenFile); code != exitFail ||
		!strings.Contains(errOut, "certificate") {
		t.Fatalf("device list over https without the CA: %d %q", code, errOut)
	}
	if code := core.terminate(); code != exitOK {
		t.Fatalf("core exit %d", code)
	}
}

// SIGHUP makes a running Core serve the pair now in the files to new
// connections; a pair that fails to load is logged and the previous one
// stays served.
func TestCoreTLSReloadOnSIGHUP(t *testing.T) {
	dir, tokenFile, token, _ := setup(t)
	root := filepath.Dir(tokenFile)
	ca := newTestCA(t)
	_, certFile, keyFile := ca.tlsFiles(t, root)
	core := startCore(t, dir, tokenFile, "-tls-cert", certFile, "-tls-key", keyFile)
	addr := strings.TrimPrefix(core.base, "https://")
	if s := ca.servedSerial(t, addr); s != 2 {
		t.Fatalf("serial %d at start, want 2", s)
	}
	ca.writePair(t, 3, certFile, keyFile)
	if err := core.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLog(t, core, "TLS certificate reloaded")
	if s := ca.servedSerial(t, addr); s != 3 {
		t.Fatalf("serial %d after SIGHUP, want 3", s)
	}
	if err := os.WriteFile(keyFile, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := core.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLog(t, core, "TLS certificate reload failed")
	if s := ca.servedSerial(t, addr); s != 3 {
		t.Fatalf("serial %d after a failed reload, want 3 kept", s)
	}
	c := newClient(t, core.base, token)
	c.hc.Transport = ca.trusting()
	c.must("GET", "/core/v1/devices", "", 200)
	if code := core.terminate(); code != exitOK {
		t.Fatalf("core exit %d:\n%s", code, core.stderr.String())
	}
}

// waitLog waits until Core logged text, woken by each line it logs.
func waitLog(t *testing.T, p *coreProc, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.stderr.String(), text) {
		if !p.alive() || time.Now().After(deadline) {
			t.Fatalf("core never logged %q:\n%s", text, p.stderr.String())
		}
		p.stderr.wait()
	}
}

// A certificate or key Core cannot load at start is ErrTLSCert and exit
// 3, before any store is opened; one of the pair alone is a usage error.
// The TURNSTILE_TLS_* variables set them like the flags.
func TestCoreTLSFlagsRefused(t *testing.T) {
	root := t.TempDir()
	tokenFile := filepath.Join(root, "token")
	if err := os.WriteFile(tokenFile, []byte("op_tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(root, "data")
	ca := newTestCA(t)
	_, certFile, keyFile := ca.tlsFiles(t, root)
	garbage := filepath.Join(root, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	otherCert := filepath.Join(root, "other.pem")
	c2, _ := ca.leaf(t, 9)
	if err := os.WriteFile(otherCert, c2, 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"core", "-data", data, "-listen", "127.0.0.1:0", "-operator-token-file", tokenFile}
	for _, c := range []struct {
		name string
		args []string
		env  map[string]string
		code int
		want string
	}{
		{"missing cert", []string{"-tls-cert", filepath.Join(root, "nope.pem"), "-tls-key", keyFile}, nil, exitTool, ErrTLSCert.Error()},
		{"missing key", []string{"-tls-cert", certFile, "-tls-key", filepath.Join(root, "nope.key")}, nil, exitTool, ErrTLSCert.Error()},
		{"not PEM", []string{"-tls-cert", garbage, "-tls-key", keyFile}, nil, exitTool, ErrTLSCert.Error()},
		{"key of another cert", []string{"-tls-cert", otherCert, "-tls-key", keyFile}, nil, exitTool, ErrTLSCert.Error()},
		{"cert from the environment", []string{"-tls-key", keyFile}, map[string]string{"TURNSTILE_TLS_CERT_FILE": filepath.Join(root, "env.pem")},
			exitTool, "env.pem"},
		{"cert alone", []string{"-tls-cert", certFile}, nil, exitUsage, ErrTLSPair.Error()},
		{"key alone from the environment", nil, map[string]string{"TURNSTILE_TLS_KEY_FILE": keyFile}, exitUsage, ErrTLSPair.Error()},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			var out, errOut bytes.Buffer
			code := run(append(append([]string{}, base...), c.args...), &out, &errOut)
			if code != c.code || !strings.Contains(errOut.String(), c.want) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, c.code, c.want, errOut.String())
			}
			if _, err := os.Stat(data); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a refused start created the store: %v", err)
			}
		})
	}
}

// In process: Reload swaps the served pair atomically, and a failed
// reload keeps the previous one.
func TestCertReloaderKeepsThePairOnFailure(t *testing.T) {
	root := t.TempDir()
	ca := newTestCA(t)
	_, certFile, keyFile := ca.tlsFiles(t, root)
	r, err := newCertReloader(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	serial := func() int64 {
		c, _ := r.getCertificate(nil)
		return c.Leaf.SerialNumber.Int64()
	}
	var logBuf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logBuf, nil))
	ca.writePair(t, 5, certFile, keyFile)
	r.reloadLogged(log)
	if serial() != 5 || !strings.Contains(logBuf.String(), "serial=5") {
		t.Fatalf("after reload: serial %d, log %s", serial(), logBuf.String())
	}
	if err := os.Remove(keyFile); err != nil {
		t.Fatal(err)
	}
	r.reloadLogged(log)
	if serial() != 5 || !strings.Contains(logBuf.String(), "reload failed") || !strings.Contains(logBuf.String(), "core.key") {
		t.Fatalf("after a failed reload: serial %d, log %s", serial(), logBuf.String())
	}
	if err := r.Reload(); !errors.Is(err, ErrTLSCert) {
		t.Fatalf("Reload of a missing key: %v", err)
	}
}

// TestCertReloaderRefusesAPairOutOfItsValidity: an expired certificate,
// or one not valid yet, is refused like an unloadable pair: at start
// (ErrTLSCert, exit 3) and on SIGHUP, where the previous pair stays
// served instead of one no client accepts.
func TestCertReloaderRefusesAPairOutOfItsValidity(t *testing.T) {
	root := t.TempDir()
	ca := newTestCA(t)
	_, certFile, keyFile := ca.tlsFiles(t, root)
	r, err := newCertReloader(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, c := range []struct {
		name                string
		notBefore, notAfter time.Time
		says                string
	}{
		{"expired", now.Add(-48 * time.Hour), now.Add(-time.Hour), "expired"},
		{"not yet valid", now.Add(time.Hour), now.Add(48 * time.Hour), "not valid before"},
	} {
		certPEM, keyPEM := ca.leafValid(t, 7, c.notBefore, c.notAfter)
		if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		var logBuf bytes.Buffer
		r.reloadLogged(slog.New(slog.NewTextHandler(&logBuf, nil)))
		if got := r.Leaf().SerialNumber.Int64(); got != 2 || !strings.Contains(logBuf.String(), "reload failed") ||
			!strings.Contains(logBuf.String(), c.says) {
			t.Fatalf("%s: serving serial %d, log %s", c.name, got, logBuf.String())
		}
		if _, err := newCertReloader(certFile, keyFile); !errors.Is(err, ErrTLSCert) || !strings.Contains(err.Error(), c.says) {
			t.Fatalf("%s at start: %v", c.name, err)
		}
	}
}
