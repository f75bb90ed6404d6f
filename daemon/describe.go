package daemon

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/wire"
)

// DescribeFrame renders a frame as one canonical line: type, id and the
// payload members the protocol logic reads. Pointers are dereferenced, so
// the text depends only on values.
func DescribeFrame(f wire.Frame) string {
	if f.Payload == nil {
		return fmt.Sprintf("<nil> id=%q", f.ID)
	}
	return fmt.Sprintf("%s id=%q %s", f.Payload.MessageType(), f.ID, describePayload(f.Payload))
}

func describePayload(p wire.Payload) string {
	switch v := p.(type) {
	case nil:
		return "{}"
	case wire.PreparationStatus:
		return fmt.Sprintf("{state=%s rev=%d handle=%q executor=%q reused=%t expires=%d run=%q code=%q op=%q}",
			v.State, v.Revision, v.Handle, v.ExecutorID, v.Reused, v.ExpiresAt, v.RunID, v.ErrorCode, v.Operation)
	case wire.Heartbeat:
		kinds := make([]string, len(v.SupportedAgentKinds))
		for i, k := range v.SupportedAgentKinds {
			kinds[i] = k.Kind + ":" + strconv.FormatBool(k.Available)
		}
		return fmt.Sprintf("{ts=%d active=%d version=%q kinds=[%s]}", v.TS, v.ActiveRequests, v.DaemonVersion, strings.Join(kinds, ","))
	case wire.ExecutionPrepare:
		return fmt.Sprintf("{session=%q kind=%q fp=%s}", v.SessionID, v.Configuration.AgentKind, shortFP(configFingerprint(v.Configuration)))
	case wire.ExecutionStart:
		return fmt.Sprintf("{executor=%q handle=%q run=%q input=%s}", v.ExecutorID, v.Handle, v.RunID, describeInput(v.Input))
	case wire.ExecutionRelease:
		return fmt.Sprintf("{handle=%q}", v.Handle)
	case wire.PromptCancel:
		return fmt.Sprintf("{delivery=%q}", v.DeliveryID)
	case wire.PromptSteer:
		return fmt.Sprintf("{input=%q durable=%t %s}", v.InputID, v.DurableReceipt, describeInput(v.Input))
	case wire.PromptSteerAck:
		return fmt.Sprintf("{input=%q written=%t accepted=%t code=%q}", v.InputID, v.Written, v.Accepted, v.ErrorCode)
	case wire.InteractionDecisionAck:
		out := "-"
		if v.Outcome != nil {
			out = describePayload(*v.Outcome)
		}
		return fmt.Sprintf("{delivery=%q applied=%t code=%q outcome=%s}", v.DeliveryID, v.Applied, v.ErrorCode, out)
	case wire.Delta:
		return fmt.Sprintf("{seq=%d item=%q delta=%q}", v.Sequence, v.ItemID, v.Delta)
	case wire.Thinking:
		return fmt.Sprintf("{seq=%d text=%q}", v.Sequence, v.Text)
	case wire.RunError:
		return fmt.Sprintf("{error=%q code=%q status=%d}", v.Error, v.Code, v.HTTPStatus)
	case wire.UsageUpdate:
		return describeUsage(&v.Usage)
	case wire.Done:
		session := ""
		if v.Metadata != nil {
			session = v.Metadata.AgentSessionID
		}
		return fmt.Sprintf("{content=%q session=%q usage=%s}", v.Content, session, describeUsage(v.Usage))
	case wire.DeviceShutdown:
		return fmt.Sprintf("{reason=%q}", v.Reason)
	}
	return "{…}"
}

func describeUsage(u *wire.Usage) string {
	if u == nil {
		return "-"
	}
	var b strings.Builder
	b.WriteString("{")
	if u.Tokens != nil {
		fmt.Fprintf(&b, "in=%d out=%d total=%d", u.Tokens.InputTokens, u.Tokens.OutputTokens, u.Tokens.TotalTokens)
	}
	if u.Model != "" {
		fmt.Fprintf(&b, " model=%q", u.Model)
	}
	b.WriteString("}")
	return b.String()
}

func describeInput(in wire.MessageInput) string {
	parts := 0
	size := 0
	for _, m := range in {
		for _, p := range m.Content {
			parts++
			if p.Text != nil {
				size += len(*p.Text)
			}
		}
	}
	return fmt.Sprintf("[msgs=%d parts=%d bytes=%d]", len(in), parts, size)
}

func shortFP(fp string) string {
	return strconv.FormatUint(fnv64(fp), 16)
}

// fnv64 is FNV-1a: a stable, non-cryptographic digest for trace text.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
