// Package wiretrace carries an OpenTelemetry span context in the wire
// envelope's W3C `trace` field, for the shells that trace frames (Core's
// server loop and the daemon's runner). The machines never see it: a
// stamped trace is diagnostics only, and a frame that the stamp would push
// over a limit leaves with the machine's own trace instead.
package wiretrace

import (
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/turnstile-sim/turnstile/wire"
)

// Span names and attribute keys of the traces of Core and the daemon
// (one set, so their spans read alike in one trace). Attributes carry
// identifiers, types, states and error codes only: never a credential, a
// token, a key, a Vault secret, a payload or input text.
const (
	SpanTurn        = "turnstile.turn"
	SpanPreparation = "turnstile.preparation"
	SpanSendPrefix  = "send "    // + frame type
	SpanRecvPrefix  = "receive " // + frame type

	AttrTurn        = attribute.Key("turnstile.turn.id")
	AttrRun         = attribute.Key("turnstile.run.id")
	AttrSession     = attribute.Key("turnstile.session.id")
	AttrState       = attribute.Key("turnstile.state")
	AttrErrorCode   = attribute.Key("turnstile.error_code")
	AttrPreparation = attribute.Key("turnstile.preparation.id")
	AttrAgentKind   = attribute.Key("turnstile.agent_kind")
	AttrFrameType   = attribute.Key("turnstile.frame.type")
	AttrFrameID     = attribute.Key("turnstile.frame.id")
	AttrConn        = attribute.Key("turnstile.conn")                  // Core's connection
	AttrConnGen     = attribute.Key("turnstile.connection.generation") // the daemon's connection
	AttrDevice      = attribute.Key("turnstile.device.id")
)

// Encode encodes f, whose trace the tracing stamped over the machine's own
// (machineTrace). If the stamped frame does not encode (it would exceed
// FrameBytesMax), f is encoded with machineTrace instead.
func Encode(f wire.Frame, machineTrace string) ([]byte, error) {
	b, err := wire.Encode(f)
	if err != nil && f.Trace != machineTrace {
		f.Trace = machineTrace
		b, err = wire.Encode(f)
	}
	return b, err
}

// Format renders a span context as a W3C traceparent (version 00); an
// invalid context renders as "".
func Format(sc trace.SpanContext) string {
	if !sc.IsValid() {
		return ""
	}
	return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
}

// Parse reads a traceparent the wire codec accepted (it drops an unusable
// one, so s is "" or valid) into a remote span context; ok is false for
// "" or anything else that is not a valid traceparent.
func Parse(s string) (sc trace.SpanContext, ok bool) {
	if !wire.ValidTraceparent(s) {
		return trace.SpanContext{}, false
	}
	tid, err1 := trace.TraceIDFromHex(s[3:35])
	sid, err2 := trace.SpanIDFromHex(s[36:52])
	if err1 != nil || err2 != nil {
		return trace.SpanContext{}, false
	}
	var flags trace.TraceFlags
	if strings.IndexByte("13579bdf", s[54]) >= 0 {
		flags = trace.FlagsSampled // the low bit of the flags byte
	}
	sc = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: flags, Remote: true})
	return sc, sc.IsValid()
}
