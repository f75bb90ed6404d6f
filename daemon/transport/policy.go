package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// CloseRetired is the WebSocket close code Core sends when the device
// was revoked or its record deleted: the credential will never be
// accepted again.
const CloseRetired websocket.StatusCode = 4001

// CodeStandby is the error code of a standby Core of an active–standby
// pair (HTTP 503): it serves once it takes the lease.
const CodeStandby = "core_standby"

// StandbyRetry is the wait after a standby's answer (its Retry-After):
// the pair is alive and one of its Cores serves as soon as it holds the
// lease, so the backoff does not grow.
const StandbyRetry = time.Second

// Standby reports whether err is a standby Core's refusal.
func Standby(err error) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.Status == http.StatusServiceUnavailable && he.Code == CodeStandby
}

// Policy is the reconnect policy: capped exponential backoff with full
// jitter. Zero fields take DefaultPolicy's values.
type Policy struct {
	// Base is the ceiling of the first retry's wait.
	Base time.Duration
	// Max caps every wait.
	Max time.Duration
	// Stable is how long a connection must stay up to count as a
	// successful connection: the next failure then counts as the first
	// again (the backoff resets). A connection that drops sooner is
	// flapping and the waits keep growing.
	Stable time.Duration
}

// DefaultPolicy returns the production reconnect policy: waits drawn in
// [0, min(30 s, 500 ms·2^(attempt-1))); a connection that stayed up for
// 5 s resets the backoff.
func DefaultPolicy() Policy {
	return Policy{Base: 500 * time.Millisecond, Max: 30 * time.Second, Stable: 5 * time.Second}
}

func (p Policy) withDefaults() Policy {
	d := DefaultPolicy()
	if p.Base <= 0 {
		p.Base = d.Base
	}
	if p.Max <= 0 {
		p.Max = d.Max
	}
	if p.Max < p.Base {
		p.Max = p.Base
	}
	if p.Stable <= 0 {
		p.Stable = d.Stable
	}
	return p
}

// Decision is what Next decided after a failed attempt.
type Decision struct {
	// Stop is set when the failure is permanent; Err then says what to fix.
	Stop bool
	Err  *PermanentError
	// Wait is how long to wait before the next attempt (when !Stop).
	Wait time.Duration
}

// Next decides what follows failed attempt number attempt (1 for the
// first failure since the last stable connection), given the attempt's
// error and a random draw in [0, 1). It is a pure function: the caller
// owns the random source, so the same (attempt, err, draw) always give
// the same decision.
//
// Permanent failures stop: HTTP 426 (incompatible_version), 401 (the
// credential), 400 and 403 (the daemon's own configuration) and close
// code 4001 (device retired). A standby's answer (503 core_standby) waits
// (1+draw)/2·StandbyRetry, whatever the attempt. Everything else waits
// draw·min(Max, Base·2^(attempt-1)) and tries again.
func (p Policy) Next(attempt int, err error, draw float64) Decision {
	if perm := Permanent(err); perm != nil {
		return Decision{Stop: true, Err: perm}
	}
	p = p.withDefaults()
	if attempt < 1 {
		attempt = 1
	}
	if draw < 0 || draw >= 1 || draw != draw {
		draw = 0
	}
	if Standby(err) {
		return Decision{Wait: time.Duration((1 + draw) / 2 * float64(StandbyRetry))}
	}
	ceiling := p.Base
	for i := 1; i < attempt && ceiling < p.Max; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, p.Max)
	return Decision{Wait: time.Duration(draw * float64(ceiling))}
}

// HTTPError is a refusal by Core's HTTP layer (bootstrap or the WebSocket
// upgrade), with the shared error body's code and detail.
type HTTPError struct {
	Op     string // "bootstrap" or "connect"
	Status int
	Code   string
	Detail string
	// Version is the protocol version the daemon offered (connect only).
	Version string
	// PlainToTLS is set when the answer is a TLS listener's refusal of a
	// plain HTTP request: the Core URL says http:// for a Core serving
	// https.
	PlainToTLS bool
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("%s: Core answered HTTP %d", e.Op, e.Status)
	if e.Code != "" {
		msg += " " + e.Code
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// PermanentError is a failure that retrying cannot clear. Fix says what
// the operator has to change.
type PermanentError struct {
	Cause error
	Fix   string
}

func (e *PermanentError) Error() string { return e.Cause.Error() + ": " + e.Fix }
func (e *PermanentError) Unwrap() error { return e.Cause }

// Permanent classifies err: it returns the PermanentError that err is or
// describes, or nil when retrying may help.
func Permanent(err error) *PermanentError {
	if err == nil {
		return nil
	}
	var perm *PermanentError
	if errors.As(err, &perm) {
		return perm
	}
	var he *HTTPError
	if errors.As(err, &he) {
		if fix := httpFix(he); fix != "" {
			return &PermanentError{Cause: err, Fix: fix}
		}
		return nil
	}
	var untrusted *tls.CertificateVerificationError
	if errors.As(err, &untrusted) {
		return &PermanentError{Cause: err, Fix: certificateFix(untrusted.Err)}
	}
	if websocket.CloseStatus(err) == CloseRetired {
		return &PermanentError{Cause: err, Fix: "Core retired this device (close code 4001: it was revoked or its record deleted); " +
			"a revoked ID cannot be enrolled again: enrol a new device ID (turnstile core device add) and restart the daemon " +
			"with it and its credential file"}
	}
	return nil
}

// certificateFix says what to change when Core's certificate fails
// verification with err.
func certificateFix(err error) string {
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	switch {
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "Core's TLS certificate is outside its validity period; renew it on Core (SIGHUP reloads it), " +
			"or correct the clock of this machine or Core's"
	case errors.As(err, &host):
		return "Core's TLS certificate does not list the Core URL's host; give -core a name or address the " +
			"certificate lists, or reissue the certificate with it"
	}
	return "this daemon does not trust Core's TLS certificate; give it the CA " +
		"certificate that signed Core's with -ca-file (TURNSTILE_CA_FILE), and check that the Core URL's host " +
		"is a name or address the certificate lists"
}

func httpFix(e *HTTPError) string {
	switch e.Status {
	case http.StatusUpgradeRequired:
		return fmt.Sprintf("Core does not speak this daemon's protocol version %q (incompatible_version); "+
			"upgrade the daemon or Core so that both use the same protocol version", e.Version)
	case http.StatusUnauthorized:
		return "Core refused the device credential; check the device ID and the credential file " +
			"(TURNSTILE_CREDENTIAL_FILE), or issue a new credential for this device"
	case http.StatusForbidden:
		return "Core refused this device as a daemon (" + e.Code + "); check that the device ID names a daemon device"
	case http.StatusBadRequest:
		if e.PlainToTLS {
			return "Core serves TLS at this address; give its URL as https://... (with -ca-file for a private CA)"
		}
		if e.Code == "" {
			return "Core refused the daemon's request; check the device ID and the Core URL"
		}
		return "Core refused the daemon's request (" + e.Code + "); check the device ID and the Core URL"
	}
	return ""
}
