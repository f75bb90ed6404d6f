package main

import (
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"

	"github.com/turnstile-sim/turnstile/core/api"
)

// Redaction of secrets in every log line: attributes whose key names a
// secret, device credentials (their recognisable prefix) anywhere in a
// message, attribute or error text, and the operator token's exact value.

const redacted = "[redacted]"

var (
	credentialPattern = regexp.MustCompile(credentialPrefix + `[A-Za-z0-9_\-]+`)
	apiKeyPattern     = regexp.MustCompile(api.KeySecretPrefix + `[A-Za-z0-9_\-]+`)
	secretKeys        = []string{"authorization", "token", "credential", "secret", "password", "bearer", "cookie"}
)

// redactor scrubs strings of secrets.
type redactor struct{ exact []string }

func (r *redactor) scrub(s string) string {
	s = credentialPattern.ReplaceAllString(s, credentialPrefix+redacted)
	s = apiKeyPattern.ReplaceAllString(s, api.KeySecretPrefix+redacted)
	for _, e := range r.exact {
		if e != "" {
			s = strings.ReplaceAll(s, e, redacted)
		}
	}
	return s
}

func (r *redactor) attr(_ []string, a slog.Attr) slog.Attr {
	k := strings.ToLower(a.Key)
	for _, sk := range secretKeys {
		if strings.Contains(k, sk) {
			return slog.String(a.Key, redacted)
		}
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.scrub(v.String()))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, r.scrub(err.Error()))
		}
		return slog.String(a.Key, r.scrub(fmt.Sprint(v.Any())))
	}
	return a
}

// newLogger returns a JSON logger to w; ReplaceAttr sees every attribute,
// the message included, and scrubs it.
func newLogger(w io.Writer, level slog.Level, r *redactor) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: r.attr}))
}
