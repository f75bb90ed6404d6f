package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// TLS of Core's listener: the gateway and the API share one certificate,
// loaded from -tls-cert and -tls-key at start and again on SIGHUP.

// Errors of Core's TLS options.
var (
	// ErrTLSPair: one of -tls-cert and -tls-key without the other (exit 2).
	ErrTLSPair = errors.New("-tls-cert and -tls-key go together: give both or neither (TURNSTILE_TLS_CERT_FILE, TURNSTILE_TLS_KEY_FILE)")
	// ErrTLSCert: the pair cannot be loaded: a file is missing or
	// unreadable, not PEM, the key does not match the certificate, or the
	// certificate is expired or not valid yet (exit 3 at start; on SIGHUP
	// the previous pair stays).
	ErrTLSCert = errors.New("TLS certificate and key cannot be loaded")
)

// tlsFlags are -tls-cert and -tls-key.
type tlsFlags struct{ cert, key string }

func addTLSFlags(fs *flag.FlagSet, t *tlsFlags) {
	fs.StringVar(&t.cert, "tls-cert", envDefault("TURNSTILE_TLS_CERT_FILE", ""),
		"PEM certificate chain Core serves the gateway and the API with over TLS (https, wss); reloaded on SIGHUP; needs -tls-key (TURNSTILE_TLS_CERT_FILE)")
	fs.StringVar(&t.key, "tls-key", envDefault("TURNSTILE_TLS_KEY_FILE", ""),
		"PEM private key of -tls-cert (TURNSTILE_TLS_KEY_FILE)")
}

// certReloader serves the certificate last loaded: Reload swaps it
// atomically, so a connection being set up gets the old or the new pair,
// whole.
type certReloader struct {
	certFile, keyFile string
	cur               atomic.Pointer[tls.Certificate]
}

// newCertReloader loads the pair once; a failure wraps ErrTLSCert.
func newCertReloader(certFile, keyFile string) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile}
	if err := r.Reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// Reload reads the pair again; on failure the previous one stays served.
func (r *certReloader) Reload() error {
	c, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return fmt.Errorf("%w: -tls-cert %s, -tls-key %s: %v", ErrTLSCert, r.certFile, r.keyFile, err)
	}
	now := time.Now()
	switch leaf := c.Leaf; {
	case now.After(leaf.NotAfter):
		return fmt.Errorf("%w: -tls-cert %s: the certificate expired at %s", ErrTLSCert, r.certFile,
			leaf.NotAfter.UTC().Format(time.RFC3339))
	case now.Before(leaf.NotBefore):
		return fmt.Errorf("%w: -tls-cert %s: the certificate is not valid before %s", ErrTLSCert, r.certFile,
			leaf.NotBefore.UTC().Format(time.RFC3339))
	}
	r.cur.Store(&c)
	return nil
}

// Leaf is the certificate now served.
func (r *certReloader) Leaf() *x509.Certificate { return r.cur.Load().Leaf }

func (r *certReloader) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return r.cur.Load(), nil
}

// config is the server TLS configuration: HTTP/1.1 only, since the
// Runtime's WebSocket upgrade needs it; TLS 1.2 at least.
func (r *certReloader) config() *tls.Config {
	return &tls.Config{GetCertificate: r.getCertificate, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
}

// listen wraps ln in TLS.
func (r *certReloader) listen(ln net.Listener) net.Listener { return tls.NewListener(ln, r.config()) }

// reloadOnHangup reloads the pair on every SIGHUP until ctx ends, logging
// the outcome: the new certificate's serial and expiry, or the failure
// (the previous pair stays).
func (r *certReloader) reloadOnHangup(ctx context.Context, log *slog.Logger) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				r.reloadLogged(log)
			}
		}
	}()
}

func (r *certReloader) reloadLogged(log *slog.Logger) {
	if err := r.Reload(); err != nil {
		log.Error("TLS certificate reload failed; still serving the previous certificate", "err", err)
		return
	}
	leaf := r.Leaf()
	log.Info("TLS certificate reloaded", "cert", r.certFile, "serial", leaf.SerialNumber.String(),
		"not_after", leaf.NotAfter.UTC().Format(time.RFC3339))
}
