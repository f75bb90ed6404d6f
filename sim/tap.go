package sim

// The tap shows checkers what crosses the simulated network: every frame a
// node hands to a connection, every frame that reaches the other end, every
// open and every close an end learns of. It is how an oracle sees the
// protocol from outside both machines — the bytes on the wire, not a
// machine's own view of them. Taps observe; they never change a frame or its
// timing.

// TapKind says what a TapEvent records.
type TapKind uint8

const (
	// TapSent: a node handed Frame to an open end of Conn (From → To). A
	// frame sent on a broken connection is reported as TapLost at once.
	TapSent TapKind = iota + 1
	// TapDelivered: Frame reached To, which is about to step on it.
	TapDelivered
	// TapLost: Frame was lost in flight (the connection broke or the
	// receiving end had closed) or was too big for the transport.
	TapLost
	// TapOpened: To learned that Conn is open (From is the peer).
	TapOpened
	// TapClosed: To learned that Conn closed (Reason says why), or closed
	// it itself (From == To; Reason ReasonCrashed when its process died).
	TapClosed
	// TapDropped: the sending end dropped a best-effort Frame (Send.Budget)
	// that could not leave within its budget; the connection stays open.
	TapDropped
)

var tapKindNames = [...]string{TapSent: "sent", TapDelivered: "delivered", TapLost: "lost",
	TapOpened: "opened", TapClosed: "closed", TapDropped: "dropped"}

func (k TapKind) String() string {
	if int(k) < len(tapKindNames) && tapKindNames[k] != "" {
		return tapKindNames[k]
	}
	return "tap?"
}

// TapEvent is one observation of the network. At is virtual nanoseconds
// since Epoch. Frame is shared with the network: a tap must not modify it.
type TapEvent struct {
	At       int64
	Kind     TapKind
	Conn     ConnID
	From, To NodeID
	Frame    []byte
	Reason   string
	// Forged: a proxy put this frame on the wire (Kernel.SetProxy,
	// Kernel.Forge); From did not send it. A checker judging what a node
	// sends skips forged frames; one judging how a node answers hostile
	// input looks for them.
	Forged bool
}

// Tap registers fn to observe every network event from the start of the
// run. Taps run in registration order, synchronously, before the receiving
// node steps. It must be called from Setup.
func (w *Kernel) Tap(fn func(TapEvent)) {
	assert.That(!w.started, "Tap after the run started")
	assert.That(fn != nil, "Tap with a nil func")
	w.taps = append(w.taps, fn)
}

func (n *network) tap(kind TapKind, c *conn, from int, frame []byte, reason string) {
	n.tapFrame(kind, c, from, frame, reason, false)
}

func (n *network) tapFrame(kind TapKind, c *conn, from int, frame []byte, reason string, forged bool) {
	w := n.w
	if len(w.taps) == 0 {
		return
	}
	ev := TapEvent{At: w.now, Kind: kind, Conn: c.id, From: w.slots[c.ends[from].node].id,
		To: w.slots[c.ends[1-from].node].id, Frame: frame, Reason: reason, Forged: forged}
	for _, fn := range w.taps {
		fn(ev)
	}
}

// tapLocalClose reports that the node at end e closed c itself.
func (n *network) tapLocalClose(c *conn, e int, reason string) {
	w := n.w
	if len(w.taps) == 0 {
		return
	}
	id := w.slots[c.ends[e].node].id
	ev := TapEvent{At: w.now, Kind: TapClosed, Conn: c.id, From: id, To: id, Reason: reason}
	for _, fn := range w.taps {
		fn(ev)
	}
}
