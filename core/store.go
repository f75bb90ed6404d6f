package core

import (
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// Store holds Core's durable records. The machine calls it synchronously
// inside Step; a write has happened when the call returns. A Store is
// fail-stop: if it cannot make a write durable it must not return (the
// process stops and restarts through Restart). Records are values: the
// machine never mutates a slice or pointee it handed to the Store, and a
// Store may return shared slices and pointers to the machine, which treats
// them as read-only.
//
// Listing methods return records in sequence order (Seq, Index).
type Store interface {
	Counters() Counters
	SaveCounters(Counters)

	PutSession(SessionRecord)
	Session(id string) (SessionRecord, bool)
	Sessions() []SessionRecord

	PutTurn(TurnRecord)
	Turn(id string) (TurnRecord, bool)
	Turns() []TurnRecord

	// PutInput inserts or replaces the input with the same Index.
	PutInput(turn string, in InputRecord)
	Inputs(turn string) []InputRecord

	// AppendEvent appends a run event; ev.Seq is one more than the
	// number of events already stored for the Turn.
	AppendEvent(turn string, ev RunEvent)
	Events(turn string) []RunEvent
}

// Counters are the durable sources of minted identities.
type Counters struct {
	Sessions     uint64 // last session number ("s-<n>")
	Turns        uint64 // last turn number ("t-<n>")
	Preparations uint64 // last preparation request number ("p-<n>")
}

// SessionRecord is a Session: its frozen agent configuration and what Core
// knows of its native session.
type SessionRecord struct {
	ID              string
	Seq             uint64
	Agent           AgentConfig
	StartedTurns    int    // Turns that started (or may have: start unconfirmed)
	NativeSessionID string // last native session ID reported (done or cancel outcome)
	// Mutation is the workspace write reserved and not settled, if any;
	// Mutations counts the writes ever reserved (it names them).
	Mutation  *MutationRecord `json:",omitempty"`
	Mutations int             `json:",omitempty"`
}

// TurnState is a Turn's durable state.
type TurnState string

const (
	TurnQueued    TurnState = "queued"   // unclaimed (preparation, if any, is volatile)
	TurnStarting  TurnState = "starting" // claimed: execution_start sent, transfer unconfirmed
	TurnRunning   TurnState = "running"  // started confirmed or run output observed
	TurnCompleted TurnState = "completed"
	TurnFailed    TurnState = "failed"
	TurnCancelled TurnState = "cancelled"
)

// Terminal reports whether s is final. A terminal state never changes.
func (s TurnState) Terminal() bool {
	return s == TurnCompleted || s == TurnFailed || s == TurnCancelled
}

// CancelState tracks a Turn's cancel request.
type CancelState string

const (
	CancelNone      CancelState = ""
	CancelRequested CancelState = "requested" // prompt_cancel sent, receipt awaited
	CancelRefused   CancelState = "refused"   // receipt applied:false; the stream decides
)

// TurnRecord is a Turn.
type TurnRecord struct {
	ID      string
	Seq     uint64
	Session string
	State   TurnState
	Input   wire.MessageInput

	Attempt    int    // execution_start attempts made
	Retried    bool   // the single executor_unavailable retry was used
	RunID      string // current attempt's Run ID (empty while queued)
	Device     string
	ExecutorID string
	Handle     string
	OutputSeen bool // native output observed for the current attempt
	// Counted: the Turn counts in its Session's StartedTurns (it started,
	// or its start was delivered without confirmation).
	Counted bool

	Cancel           CancelState
	CancelDeliveryID string // delivery ID of the latest cancel attempt
	CancelAttempts   int    // prompt_cancel attempts sent (a not_ready refusal allows another)
	// CancelDeadline is the first attempt's send instant plus
	// CancelConfirmTimeout: every attempt's confirmation window ends there,
	// and no retry is sent at or after it.
	CancelDeadline time.Time
	// CancelAnswered: the latest attempt was refused with not_ready; its
	// delivery ID awaits no further receipt until the next attempt leaves.
	CancelAnswered  bool
	CancelErrorCode string     // code of a refused cancel receipt
	CancelOutcome   *wire.Done // continuity snapshot of an applied cancel

	EventCount       uint64
	Done             *wire.Done
	ErrorSeen        bool
	ErrorText        string
	EngineErrorCode  string
	EngineHTTPStatus int
	Usage            *wire.Usage // last cumulative snapshot

	InputCursor int // number of active inputs accepted, in order

	ErrorCode   string // Core failure code when State is failed
	ErrorDetail string

	// Interactions are the Run's permission requests, user-choice prompts
	// and function calls, in arrival order (at most 256).
	Interactions []InteractionRecord `json:",omitempty"`
	// Subagents are the Run's subagent observations Core accepted, in
	// arrival order (at most 512; subagent.go).
	Subagents []SubagentRecord `json:",omitempty"`
}

// InputState is an active input's durable state.
type InputState string

const (
	InputQueued       InputState = "queued"
	InputDelivering   InputState = "delivering" // prompt_steer sent, no receipt stage yet
	InputWritten      InputState = "written"    // native write done; consumption unconfirmed
	InputAccepted     InputState = "accepted"
	InputUnknown      InputState = "unknown" // no `written` in time; never redelivered
	InputFailed       InputState = "failed"  // refused with ErrorCode
	InputNotDelivered InputState = "not_delivered"
)

// InputRecord is one active input of a Turn.
type InputRecord struct {
	Index     int    // 1-based position
	ID        string // decimal Index: the wire input_id
	Input     wire.MessageInput
	State     InputState
	ErrorCode string
	Sends     int // prompt_steer frames sent (resends follow not_ready/busy only)
}

// RunEvent is one persisted run event (delta, thinking, output_message,
// tool_call, usage, error, done) in arrival order.
type RunEvent struct {
	Seq     uint64
	Type    string
	Payload wire.Payload
}
