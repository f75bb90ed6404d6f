package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// daemonRedacted replaces a secret in the daemon's log.
const daemonRedacted = "[redacted]"

// daemonSecretKeys are attribute keys whose values are never logged.
var daemonSecretKeys = []string{"credential", "authorization", "bearer", "token", "secret", "password"}

// newDaemonLogger returns a text logger to w that never writes a secret:
// attributes named like one are replaced, and every occurrence of the
// given secret values in a message, a string, an error or any other
// rendered value is masked.
func newDaemonLogger(w io.Writer, level slog.Level, secrets ...string) *slog.Logger {
	var exact []string
	for _, s := range secrets {
		if s = strings.TrimSpace(s); s != "" {
			exact = append(exact, s)
		}
	}
	mask := func(s string) string {
		for _, e := range exact {
			s = strings.ReplaceAll(s, e, daemonRedacted)
		}
		return s
	}
	replace := func(_ []string, a slog.Attr) slog.Attr {
		key := strings.ToLower(a.Key)
		for _, k := range daemonSecretKeys {
			if strings.Contains(key, k) {
				return slog.String(a.Key, daemonRedacted)
			}
		}
		switch a.Value.Kind() {
		case slog.KindString:
			return slog.String(a.Key, mask(a.Value.String()))
		case slog.KindAny:
			return slog.String(a.Key, mask(fmt.Sprint(a.Value.Any())))
		}
		return a
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: replace}))
}
