package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestPolicyNextTable(t *testing.T) {
	p := Policy{Base: 100 * time.Millisecond, Max: time.Second}
	transient := io.ErrUnexpectedEOF
	cases := []struct {
		attempt int
		err     error
		draw    float64
		want    time.Duration
	}{
		{1, transient, 0, 0},
		{1, transient, 0.5, 50 * time.Millisecond},
		{1, transient, 0.999, 99900 * time.Microsecond},
		{2, transient, 0.5, 100 * time.Millisecond},
		{3, transient, 0.5, 200 * time.Millisecond},
		{4, transient, 0.5, 400 * time.Millisecond},
		{5, transient, 0.5, 500 * time.Millisecond}, // 1.6 s capped at 1 s
		{60, transient, 0.25, 250 * time.Millisecond},
		{1 << 30, transient, 0.5, 500 * time.Millisecond},
		{0, transient, 0.5, 50 * time.Millisecond}, // attempts below 1 count as the first
		{2, transient, 1.5, 0},                     // a draw outside [0, 1) is treated as 0
		{2, transient, -0.1, 0},                    // likewise
		{1, &HTTPError{Op: "connect", Status: 503}, 0.5, 50 * time.Millisecond},
		{1, &HTTPError{Op: "bootstrap", Status: 500, Code: "internal"}, 0.5, 50 * time.Millisecond},
		{1, websocket.CloseError{Code: websocket.StatusGoingAway}, 0.5, 50 * time.Millisecond},
		{1, websocket.CloseError{Code: websocket.StatusPolicyViolation}, 0.5, 50 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("attempt=%d/draw=%v/%v", c.attempt, c.draw, c.err), func(t *testing.T) {
			d := p.Next(c.attempt, c.err, c.draw)
			if d.Stop || d.Err != nil {
				t.Fatalf("transient error stopped: %+v", d)
			}
			if d.Wait != c.want {
				t.Fatalf("wait %v, want %v", d.Wait, c.want)
			}
		})
	}
}

func TestPolicyPermanentFailures(t *testing.T) {
	cases := []struct {
		name string
		err  error
		fix  string
	}{
		{"426", &HTTPError{Op: "connect", Status: http.StatusUpgradeRequired, Code: "incompatible_version", Version: "0.10.0"}, `protocol version "0.10.0"`},
		{"401 connect", &HTTPError{Op: "connect", Status: http.StatusUnauthorized, Code: "bad_credential"}, "credential file"},
		{"401 bootstrap", &HTTPError{Op: "bootstrap", Status: http.StatusUnauthorized, Code: "unknown_device"}, "credential file"},
		{"403", &HTTPError{Op: "connect", Status: http.StatusForbidden, Code: "wrong_runtime_type"}, "names a daemon device"},
		{"400", &HTTPError{Op: "connect", Status: http.StatusBadRequest, Code: "missing_params"}, "device ID"},
		{"4001", fmt.Errorf("read: %w", websocket.CloseError{Code: CloseRetired, Reason: "runtime retired"}), "enrol a new device ID"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, draw := range []float64{0, 0.5} {
				d := DefaultPolicy().Next(3, c.err, draw)
				if !d.Stop || d.Err == nil || d.Wait != 0 {
					t.Fatalf("permanent failure not stopped: %+v", d)
				}
				if !strings.Contains(d.Err.Fix, c.fix) || !strings.Contains(d.Err.Error(), c.fix) {
					t.Fatalf("fix %q does not say %q", d.Err.Fix, c.fix)
				}
				if !errors.Is(d.Err, c.err) && !errors.As(d.Err, new(websocket.CloseError)) {
					t.Fatalf("permanent error lost its cause: %v", d.Err)
				}
			}
		})
	}
}

// The wait never exceeds the ceiling, and draws spread over the whole
// interval (full jitter: a draw near 1 waits nearly the ceiling).
func TestPolicyFullJitterBounds(t *testing.T) {
	p := DefaultPolicy()
	for attempt := 1; attempt <= 12; attempt++ {
		ceiling := min(p.Base<<(attempt-1), p.Max)
		lo := p.Next(attempt, io.EOF, 0).Wait
		hi := p.Next(attempt, io.EOF, 0.9999).Wait
		if lo != 0 || hi >= ceiling || hi < ceiling*99/100 {
			t.Fatalf("attempt %d: waits [%v, %v] for ceiling %v", attempt, lo, hi, ceiling)
		}
	}
}

// TestPolicyStandbyAnswerWaitsASecond: a standby's 503 core_standby
// waits within [StandbyRetry/2, StandbyRetry) at any attempt; another 503
// backs off as usual.
func TestPolicyStandbyAnswerWaitsASecond(t *testing.T) {
	p := DefaultPolicy()
	standby := &HTTPError{Op: "bootstrap", Status: http.StatusServiceUnavailable, Code: CodeStandby}
	for _, attempt := range []int{1, 6, 20} {
		lo, hi := p.Next(attempt, standby, 0), p.Next(attempt, standby, 0.9999)
		if lo.Stop || hi.Stop || lo.Wait != StandbyRetry/2 || hi.Wait >= StandbyRetry || hi.Wait < StandbyRetry*99/100 {
			t.Fatalf("attempt %d: standby waits [%v, %v]", attempt, lo.Wait, hi.Wait)
		}
	}
	other := &HTTPError{Op: "bootstrap", Status: http.StatusServiceUnavailable, Code: "unavailable"}
	if d := p.Next(6, other, 0.9999); d.Wait < 15*time.Second {
		t.Fatalf("another 503 at attempt 6 waits %v", d.Wait)
	}
}

// TestUntrustedCertificateFixNamesTheCause: a certificate out of its
// validity or for another host is no question of -ca-file; the fix says
// what is wrong with it instead.
func TestUntrustedCertificateFixNamesTheCause(t *testing.T) {
	verify := func(err error) error {
		return fmt.Errorf("bootstrap: %w", &tls.CertificateVerificationError{Err: err})
	}
	for _, c := range []struct {
		name      string
		err       error
		says, not string
	}{
		{"expired", verify(x509.CertificateInvalidError{Reason: x509.Expired}), "validity", "-ca-file"},
		{"other host", verify(x509.HostnameError{Certificate: &x509.Certificate{DNSNames: []string{"other.example"}}, Host: "localhost"}), "host", "-ca-file"},
		{"unknown authority", verify(x509.UnknownAuthorityError{}), "-ca-file", "validity"},
	} {
		perm := Permanent(c.err)
		if perm == nil || !strings.Contains(perm.Fix, c.says) || strings.Contains(perm.Fix, c.not) {
			t.Errorf("%s: %v", c.name, perm)
		}
	}
}

func TestPolicyZeroValueTakesDefaults(t *testing.T) {
	if got, want := (Policy{}).Next(1, io.EOF, 0.5).Wait, DefaultPolicy().Base/2; got != want {
		t.Fatalf("zero policy wait %v, want %v", got, want)
	}
}
