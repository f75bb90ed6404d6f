package sim

import "strconv"

// appendFrame renders a frame with Options.Describe, or the default
// length-and-hex rendering.
func (w *Kernel) appendFrame(b []byte, frame []byte) []byte {
	if w.describe != nil {
		return append(b, w.describe(frame)...)
	}
	return appendFrameDefault(b, frame)
}

func appendConn(b []byte, id ConnID) []byte {
	b = append(b, 'c')
	return strconv.AppendUint(b, uint64(id), 10)
}

func appendDescriber(b []byte, d Describer) []byte {
	if d == nil {
		return append(b, "<nil>"...)
	}
	if a, ok := d.(AppendDescriber); ok {
		return a.AppendDescribe(b)
	}
	return append(b, d.Describe()...)
}

// appendEvent renders an event canonically.
func (w *Kernel) appendEvent(b []byte, ev Event) []byte {
	switch e := ev.(type) {
	case Delivered:
		b = append(b, "recv "...)
		b = appendConn(b, e.Conn)
		b = append(b, ' ')
		return w.appendFrame(b, e.Frame)
	case TimerFired:
		b = append(b, "timer "...)
		return append(b, e.Timer...)
	case Start:
		b = append(b, "start inc="...)
		return strconv.AppendUint(b, uint64(e.Incarnation), 10)
	case ConnOpened:
		b = append(b, "opened "...)
		b = appendConn(b, e.Conn)
		b = append(b, " peer="...)
		b = append(b, e.Peer...)
		b = append(b, " dialer="...)
		b = strconv.AppendBool(b, e.Dialer)
		if e.Tag != "" {
			b = append(b, " tag="...)
			b = strconv.AppendQuote(b, e.Tag)
		}
		if e.Query != "" {
			b = append(b, " query="...)
			b = strconv.AppendQuote(b, e.Query)
		}
		return b
	case ConnClosed:
		b = append(b, "closed "...)
		b = appendConn(b, e.Conn)
		b = append(b, " reason="...)
		return strconv.AppendQuote(b, e.Reason)
	case DialFailed:
		b = append(b, "dial-failed peer="...)
		b = append(b, e.Peer...)
		b = append(b, " tag="...)
		b = strconv.AppendQuote(b, e.Tag)
		b = append(b, " reason="...)
		return strconv.AppendQuote(b, e.Reason)
	case CallReceived:
		return appendCall(b, "call from=", e.From, e.Call, e.Req)
	case CallReturned:
		return appendCall(b, "reply from=", e.From, e.Call, e.Res)
	}
	panic("sim: unknown event type")
}

// appendEffect renders an effect canonically.
func (w *Kernel) appendEffect(b []byte, ef Effect) []byte {
	switch e := ef.(type) {
	case Send:
		b = append(b, "send "...)
		b = appendConn(b, e.Conn)
		b = append(b, ' ')
		return w.appendFrame(b, e.Frame)
	case SetTimer:
		b = append(b, "set-timer "...)
		b = append(b, e.Timer...)
		b = append(b, " at="...)
		return appendTime(b, int64(e.At.Sub(Epoch)))
	case CancelTimer:
		b = append(b, "cancel-timer "...)
		return append(b, e.Timer...)
	case Close:
		b = append(b, "close "...)
		b = appendConn(b, e.Conn)
		b = append(b, " reason="...)
		return strconv.AppendQuote(b, e.Reason)
	case Dial:
		b = append(b, "dial peer="...)
		b = append(b, e.Peer...)
		b = append(b, " tag="...)
		b = strconv.AppendQuote(b, e.Tag)
		if e.Query != "" {
			b = append(b, " query="...)
			b = strconv.AppendQuote(b, e.Query)
		}
		return b
	case Call:
		return appendCall(b, "call to=", e.To, e.Call, e.Req)
	case Reply:
		return appendCall(b, "reply to=", e.To, e.Call, e.Res)
	}
	panic("sim: unknown effect type")
}

// appendCall renders a call or reply line: head, node, call ID, payload.
func appendCall(b []byte, head string, node NodeID, call CallID, d Describer) []byte {
	b = append(b, head...)
	b = append(b, node...)
	b = append(b, " id="...)
	b = strconv.AppendUint(b, uint64(call), 10)
	b = append(b, ' ')
	return appendDescriber(b, d)
}
