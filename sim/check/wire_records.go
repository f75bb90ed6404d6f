package check

import (
	"strconv"

	"github.com/turnstile-sim/turnstile/wire"
)

// Wire event kinds, as the simulated network reports them.
const (
	WireSent      = "sent"      // a node handed the frame to its connection
	WireDelivered = "delivered" // the frame reached the other end
	WireLost      = "lost"      // lost in flight, or too big for the transport
	WireOpened    = "opened"    // To learned the connection is open
	WireClosed    = "closed"    // To learned it closed (From == To: To closed it)
	WireDropped   = "dropped"   // From's end dropped a best-effort frame unwritten; the connection stays open
)

// WireEvent is one observation of the simulated network, seen from outside
// both machines: the bytes on the wire, decoded once by the world. Frame is
// the zero value when Raw is empty (opens and closes) or did not decode
// (DecodeErr says why).
type WireEvent struct {
	At        int64
	Kind      string
	Conn      uint64
	From, To  string // node IDs
	Raw       []byte
	Frame     wire.Frame
	DecodeErr error
	Reason    string
	// Forged: a hostile proxy put the frame on the wire; From never sent
	// it. Checkers of what a machine sends skip forged frames.
	Forged bool
}

// HasFrame reports whether the event carries a decoded frame.
func (e WireEvent) HasFrame() bool { return len(e.Raw) > 0 && e.DecodeErr == nil }

// Wire records one network observation. Checkers that judge frames against
// the protocol's rules register in wireObservers (NewLedger) and see every
// event in network order.
func (l *Ledger) Wire(ev WireEvent) {
	for _, observe := range l.wireObservers {
		observe(ev)
	}
}

// connKey names a connection as the other records do ("c7").
func connKey(c uint64) string { return "c" + strconv.FormatUint(c, 10) }
