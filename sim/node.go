package sim

import "time"

// NodeID names a node (a machine or a simulated service) in the world.
type NodeID string

// ConnID names one simulated connection. Both ends see the same ID; IDs are
// assigned by the kernel in dial order, starting at 1.
type ConnID uint64

// TimerID names a timer. IDs are chosen by the node and are private to it: two
// nodes may use the same TimerID without interference.
type TimerID string

// CallID names an outbound call to a service. IDs are chosen by the calling
// node and are private to it. Replies for a call made by an incarnation that
// has since crashed are dropped, unless the new incarnation reuses the same
// CallID; nodes that restart should fold Start.Incarnation into their IDs.
type CallID uint64

// Describer renders a call request or result as one canonical line for the
// trace. It must be deterministic: same value, same string.
type Describer interface{ Describe() string }

// AppendDescriber is a Describer that can also append its description to
// a buffer; trace lines use AppendDescribe when a value has it. Its text
// is exactly Describe's.
type AppendDescriber interface {
	Describer
	AppendDescribe(b []byte) []byte
}

// Node is a deterministic machine under simulation. Step is its only entry
// point: it receives the virtual time and one event and returns the effects
// the kernel must carry out, in order. A Node must not read a clock, start
// goroutines, touch the network or the file system, or draw randomness from
// anything but the *rand.Rand the world handed it (Kernel.Rand).
type Node interface {
	Step(now time.Time, ev Event) []Effect
}

// NodeFunc adapts a function to the Node interface.
type NodeFunc func(now time.Time, ev Event) []Effect

// Step calls f.
func (f NodeFunc) Step(now time.Time, ev Event) []Effect { return f(now, ev) }

// Factory builds the volatile part of a node. The world calls it when the run
// starts and again on every restart after a crash; durable state that must
// survive a crash lives outside the node and is the caller's business.
type Factory func() Node

// Event is an input to Node.Step. The set is closed: only the types in this
// file implement it.
type Event interface{ isEvent() }

// Start is the first event an incarnation sees. Incarnation is 1 for the
// initial start and grows by one on every restart.
type Start struct{ Incarnation uint32 }

// ConnOpened reports a new connection. Dialer is true at the end that issued
// the Dial (Tag echoes the Dial's tag), false at the accepting end. Query
// is the Dial's query, seen by both ends (what a WebSocket upgrade URL
// tells the server).
type ConnOpened struct {
	Conn   ConnID
	Peer   NodeID
	Dialer bool
	Tag    string
	Query  string
}

// Delivered hands the node one frame received on Conn. Frames of a direction
// arrive in the order they were sent, each exactly once, unless the
// connection closes first.
type Delivered struct {
	Conn  ConnID
	Frame []byte
}

// ConnClosed reports that Conn is gone: the peer closed it, it broke, the
// peer crashed, or a frame exceeded FrameBytesMax. It is delivered at most
// once per end, and never to an end that closed the connection itself.
type ConnClosed struct {
	Conn   ConnID
	Reason string
}

// DialFailed reports that a Dial (identified by Peer and Tag) was refused.
type DialFailed struct {
	Peer   NodeID
	Tag    string
	Reason string
}

// TimerFired reports that a timer set with SetTimer reached its instant.
type TimerFired struct{ Timer TimerID }

// CallReceived hands a service one call made by From.
type CallReceived struct {
	From NodeID
	Call CallID
	Req  Describer
}

// CallReturned hands the caller one reply to its call. A service may reply
// several times to one call (a stream), each reply arriving in order.
type CallReturned struct {
	From NodeID
	Call CallID
	Res  Describer
}

func (Start) isEvent()        {}
func (ConnOpened) isEvent()   {}
func (Delivered) isEvent()    {}
func (ConnClosed) isEvent()   {}
func (DialFailed) isEvent()   {}
func (TimerFired) isEvent()   {}
func (CallReceived) isEvent() {}
func (CallReturned) isEvent() {}

// Effect is an output of Node.Step. The kernel applies a step's effects in
// the order returned, before it pops the next event. The set is closed.
type Effect interface{ isEffect() }

// Send writes Frame on Conn. Frames of one direction are delivered in send
// order after the connection's latency. Sending on a connection the node has
// closed, or that is already broken, silently drops the frame (as a write to a
// dead socket would). A frame larger than FrameBytesMax is rejected by the
// receiving end, which closes the connection with a "message too big" reason
// seen by both ends. The kernel keeps the slice: do not mutate it afterwards.
//
// Budget above zero makes the frame best effort, as a shell's write
// deadline on a queued frame would: a frame that cannot leave the sender
// within Budget of being sent (held by a stall, or behind a slow link or
// the frames queued ahead of it for that long) is dropped instead,
// reported TapDropped, and the connection stays open. Zero: no bound.
type Send struct {
	Conn   ConnID
	Frame  []byte
	Budget time.Duration
}

// Close closes Conn gracefully. Frames already sent by this node are still
// delivered, then the peer receives ConnClosed with Reason. This node receives
// no ConnClosed for Conn; frames in flight towards it are dropped.
type Close struct {
	Conn   ConnID
	Reason string
}

// Dial opens a connection to Peer. After one latency the peer sees
// ConnOpened{Dialer: false}; after two latencies the dialer sees
// ConnOpened{Dialer: true, Tag: Tag}. A refused dial (peer down, unknown, or
// inside a dial-refusal window) yields DialFailed after one round trip.
// Several connections between the same two nodes may exist at once (a
// replacement connection is simply another Dial).
type Dial struct {
	Peer NodeID
	Tag  string
	// Query travels to the accepting end with the open (ConnOpened.Query),
	// as the query of an upgrade request does: for example the identity and
	// protocol version a client claims. Empty for most dials.
	Query string
}

// SetTimer arms timer Timer to fire at At (clamped to now if in the past).
// Setting a timer that is already armed replaces it: only the last SetTimer
// fires. Timers of one node firing at the same instant fire in the order they
// were set.
type SetTimer struct {
	Timer TimerID
	At    time.Time
}

// CancelTimer disarms Timer; cancelling an unarmed timer is a no-op. A
// cancelled timer never fires, even if its instant is the current one.
type CancelTimer struct{ Timer TimerID }

// Call sends Req to the service To. The service receives CallReceived in the
// same virtual instant, after every event already queued for that instant.
// Calls to a crashed or unknown service are dropped (the caller is expected
// to time out).
type Call struct {
	To   NodeID
	Call CallID
	Req  Describer
}

// Reply answers call Call made by To. The caller receives CallReturned in the
// same virtual instant, after every event already queued for it. Replies are
// dropped if the caller has crashed since it made the call.
type Reply struct {
	To   NodeID
	Call CallID
	Res  Describer
}

func (Send) isEffect()        {}
func (Close) isEffect()       {}
func (Dial) isEffect()        {}
func (SetTimer) isEffect()    {}
func (CancelTimer) isEffect() {}
func (Call) isEffect()        {}
func (Reply) isEffect()       {}

// Text is a Describer for plain strings, handy for small services and tests.
type Text string

// Describe returns the string itself.
func (t Text) Describe() string { return string(t) }
