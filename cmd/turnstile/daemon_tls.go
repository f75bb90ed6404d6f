package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
)

// ErrCAFile: -ca-file cannot be read or holds no PEM certificate.
var ErrCAFile = errors.New("-ca-file must name a readable file of PEM CA certificates (TURNSTILE_CA_FILE)")

// coreHTTPClient is the daemon's client of Core (bootstrap and the wss
// upgrade). Without caFile it is nil: the default client, verifying
// Core's certificate against the system roots. With it, the file's CA
// certificates are added to the system roots (or stand alone where the
// system has none).
func coreHTTPClient(caFile string) (*http.Client, error) {
	if caFile == "" {
		return nil, nil
	}
	b, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCAFile, err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%w: %s holds no PEM certificate", ErrCAFile, caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	tr.ForceAttemptHTTP2 = false // the WebSocket upgrade is HTTP/1.1
	return &http.Client{Transport: tr}, nil
}
