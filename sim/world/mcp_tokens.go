package world

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/turnstile-sim/turnstile/sim"
	"github.com/turnstile-sim/turnstile/sim/check"
	"github.com/turnstile-sim/turnstile/wire"
)

// MCP bearer tokens never leave the one place the protocol carries them:
// Core's execution_prepare to the Runtime (mcp_http_servers[].bearer_token).
// From the workload's drawn tokens (ground truth), two scans: every
// trace line (the kernel's trace, frames described with wire.Describe
// included), and every frame on the simulated network, where only an
// execution_prepare sent by Core may hold one. A leak is reported once,
// naming the token by its draw position, never its value.

// checkMCPToken names the leak check.
const checkMCPToken = "mcp_token_leak"

// tokenTap scans trace lines before handing them on.
type tokenTap struct {
	next   io.Writer
	tokens func() []string
	leak   string // the first leak, if any
}

func (t *tokenTap) Write(p []byte) (int, error) {
	if t.leak == "" {
		if i := tokenIn(p, t.tokens()); i >= 0 {
			t.leak = fmt.Sprintf("a trace line carries MCP token #%d", i+1)
		}
	}
	return t.next.Write(p)
}

// tokenPrefix begins every token drawMCP draws: a line without it holds
// none of them, which one scan of the line settles.
const tokenPrefix = "simtok-"

// tokenIn is the draw position of the first token (in draw order) that p
// contains, or -1.
func tokenIn(p []byte, tokens []string) int {
	if len(tokens) == 0 {
		return -1
	}
	if allPrefixed(tokens) && indexTokenPrefix(p) < 0 {
		return -1
	}
	for i, tok := range tokens {
		if bytes.Contains(p, []byte(tok)) {
			return i
		}
	}
	return -1
}

// indexTokenPrefix is bytes.Index(p, tokenPrefix), found by the prefix's
// rare 'k': trace lines are full of the 's' a search led by it stops at.
func indexTokenPrefix(p []byte) int {
	const k = len(tokenPrefix) - 2 // tokenPrefix[k] == 'k'
	for off := k; off < len(p); {
		j := bytes.IndexByte(p[off:], 'k')
		if j < 0 {
			return -1
		}
		j += off
		if j+2 <= len(p) && string(p[j-k:j+2]) == tokenPrefix {
			return j - k
		}
		off = j + 1
	}
	return -1
}

func allPrefixed(tokens []string) bool {
	for _, tok := range tokens {
		if !strings.HasPrefix(tok, tokenPrefix) {
			return false
		}
	}
	return true
}

// scanTokens checks one network event. Only what a node itself sends is
// judged (the hostile proxy's forged, replayed or rewritten copies of
// Core's frames are the network's doing): a token in a frame a node sent
// other than Core's execution_prepare is a leak. The delivery of an
// unforged execution_prepare holding a token marks mcp_bearer_delivered.
func (u *universe) scanTokens(ev sim.TapEvent, we check.WireEvent) {
	if len(ev.Frame) == 0 || u.wl == nil || we.Forged {
		return
	}
	i := tokenIn(ev.Frame, u.wl.mcpTokens())
	if i < 0 {
		return
	}
	_, prepare := we.Frame.Payload.(wire.ExecutionPrepare)
	switch {
	case ev.Kind == sim.TapSent && (!prepare || ev.From != coreID):
		if u.tokenLeak == "" {
			u.tokenLeak = fmt.Sprintf("MCP token #%d in a %s frame %s sent to %s", i+1, payloadType(we.Frame), ev.From, ev.To)
		}
	case ev.Kind == sim.TapDelivered && prepare:
		u.mark(check.MarkMCPBearerDelivered)
	}
}

func payloadType(f wire.Frame) string {
	if f.Payload == nil {
		return "undecodable"
	}
	return f.Payload.MessageType()
}

// tokenViolation is the run's leak, if any.
func (u *universe) tokenViolation(tap *tokenTap) (sim.Violation, bool) {
	msg := tap.leak
	if msg == "" {
		msg = u.tokenLeak
	}
	if msg == "" {
		return sim.Violation{}, false
	}
	return sim.Violation{At: u.w.Now().Sub(sim.Epoch), Check: checkMCPToken, Message: msg}, true
}
