package api

import (
	"fmt"
	"net/http"
)

// layeredMux holds patterns that may overlap without either being more
// specific (the SDK's /agents/environments/templates/{id} and
// /agents/environments/{id}/files both match
// /agents/environments/templates/files), which one http.ServeMux refuses:
// a pattern joins the first layer it does not conflict with, and a
// request goes to the first layer with a matching pattern, so the pattern
// listed first wins. The same pattern twice is a programming error.
type layeredMux struct {
	layers  []*http.ServeMux
	seen    map[string]bool
	chained bool
}

func (l *layeredMux) handle(pattern string, h http.HandlerFunc) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if l.seen[pattern] {
		panic(fmt.Sprintf("api: pattern %q registered twice", pattern))
	}
	if l.chained {
		panic(fmt.Sprintf("api: pattern %q registered after serveOr", pattern))
	}
	l.seen[pattern] = true
	for _, m := range l.layers {
		if tryHandle(m, pattern, h) {
			return
		}
	}
	m := http.NewServeMux()
	m.HandleFunc(pattern, h)
	l.layers = append(l.layers, m)
}

// tryHandle registers pattern on m unless it conflicts with a pattern
// there (ServeMux panics on a conflict).
func tryHandle(m *http.ServeMux, pattern string, h http.HandlerFunc) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	m.HandleFunc(pattern, h)
	return true
}

// match returns the layer whose pattern matches r, or nil.
func (l *layeredMux) match(r *http.Request) *http.ServeMux {
	for _, m := range l.layers {
		if _, pat := m.Handler(r); pat != "" {
			return m
		}
	}
	return nil
}

// serveOr returns a handler that serves a request by the first layer
// with a matching pattern, routing it once per layer it tries (each
// layer passes what it does not match to the next through a catch-all
// "/", which matches only what no pattern of the layer does), and by
// fallback when no layer matches. No pattern may be added afterwards.
func (l *layeredMux) serveOr(fallback http.HandlerFunc) http.Handler {
	l.chained = true
	next := http.Handler(fallback)
	for i := len(l.layers) - 1; i >= 0; i-- {
		l.layers[i].Handle("/", next)
		next = l.layers[i]
	}
	return next
}
