package scenarios

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/turnstile-sim/turnstile/wire"
)

// Side is one end of the protocol.
type Side string

const (
	Core    Side = "core"
	Runtime Side = "runtime"
)

// Kind is the kind of a step.
type Kind string

// Step kinds, one per directive.
const (
	KindFrame      Kind = "frame"      // core|runtime <type> id=<id>, payload as input
	KindConnect    Kind = "connect"    // the Runtime's connection opens
	KindReconnect  Kind = "reconnect"  // a new connection after a disconnect
	KindDisconnect Kind = "disconnect" // the connection is lost (by=core: Core closed it)
	KindAdvance    Kind = "advance"    // fake time moves
	KindSilence    Kind = "silence"    // a side sends nothing for a window
	KindSettle     Kind = "settle"     // native settlement of the Runtime's Turn
	KindHarness    Kind = "harness"    // controlled adapter behaviour (Runtime side)
	KindAPI        Kind = "api"        // a public API call to Core (Core side)
	KindCoreState  Kind = "core-state" // assertion on Core-owned Turn state
	// KindCoreInteraction asserts Core's record of one interaction of a Turn.
	KindCoreInteraction Kind = "core-interaction"
	// KindCoreSuspension asserts Core's record of the latest suspension.
	KindCoreSuspension Kind = "core-suspension"
	// KindCorePreparation asserts Core's record of the latest
	// Environment preparation.
	KindCorePreparation Kind = "core-preparation"
	// KindCoreWorkspace asserts the answer of the latest workspace call.
	KindCoreWorkspace  Kind = "core-workspace"
	KindRuntimeOwned   Kind = "runtime-owned"   // assertion on Runtime-owned resources
	KindVersionRefused Kind = "version-refused" // the upgrade with a version is refused
	KindInclude        Kind = "include"         // the steps of testdata/include/<name>.txt
	KindOnly           Kind = "only"            // only <side>: the other side's runners skip the scenario
)

// Epoch is a scenario's first instant on the machine runners, and the
// modification time of every file and directory a harness file step
// lays down (so that an export's tar stream is the same bytes on every
// runner).
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// KeepaliveInterval is how often a scripted Runtime repeats its last
// heartbeat while time advances (the bootstrap's default cadence).
const KeepaliveInterval = 15 * time.Second

// Harness actions of the controlled adapter.
var HarnessActions = []string{
	"fail-setup",      // the next native Executor setup fails
	"hang-setup",      // the next native Executor setup answers only at release
	"fail-start",      // the next native start fails before a Turn exists
	"hang-cancel",     // the next native cancel request never answers
	"hang-settle",     // the next settlement wait never answers
	"uncertain-write", // the next durable write has an unknown outcome
	"hang-write",      // the next durable write never answers
	"release",         // every hanging native call answers now, successfully
	"hold-apply",      // the next written input is not consumed until apply
	"apply",           // the held input is consumed now
	"close-failure",   // the next executor close fails (a retry succeeds)
	"late-event",      // a native event follows the next settlement
	"emit",            // the live Turn emits a native event (type arg, JSON input)
	"file",            // a file (environment=, path=; the input is its content) lies in the workspace
}

// apiArgs lists the arguments of each public API call a scenario can
// make to Core. The answer calls take the
// public API's request body as JSON input and may name the refusal the
// call must get (refused=<error code>).
var apiArgs = map[string][]string{
	"submit-turn":       {"text", "kind"},
	"steer":             {"text", "turn"},
	"cancel":            {"turn"},
	"answer-permission": {"interaction", "turn", "refused"},
	"answer-choice":     {"interaction", "turn", "refused"},
	"function-result":   {"call", "turn", "refused"},
	"quiesce":           {"environment", "refused"},
	"resume":            {"rollback", "refused"},
	// prepare-environment: the input is a JSON array of runtime_prepare
	// begin headers, each with its body as the data member.
	"prepare-environment": {"environment", "session", "refused"},
	// The workspace calls (the next core-workspace asserts the answer);
	// write-file's input is the file's content.
	"read-directory": {"environment", "path", "max_entries"},
	"read-file":      {"environment", "path", "max_bytes"},
	"write-file":     {"environment", "path"},
	"export":         {"environment"},
}

// apiTarget names the argument an answer call requires.
var apiTarget = map[string]string{"answer-permission": "interaction", "answer-choice": "interaction", "function-result": "call",
	"prepare-environment": "environment"}

// Frame is a frame a scenario step sends.
type Frame struct {
	Type    string
	ID      string // may hold placeholders
	Payload string // JSON text, may hold placeholders; empty for bodyless types
	Invalid bool   // the frame is meant not to decode (implies Rogue)
	// Rogue: a misbehaving peer sends it. A correct implementation of
	// that side never does, so its own runner does not assert it; the
	// other side's runner delivers it.
	Rogue bool
	// Lost: the frame is lost in transit (a half-open connection). Its
	// sender's runner asserts it like any other; the receiver's runner
	// does not deliver it, so the receiver never learns of it.
	Lost bool
}

// CoreOnly reports whether steps of kind k concern Core only (the
// Runtime's runners ignore them).
func (k Kind) CoreOnly() bool {
	return k == KindAPI || k == KindCoreState || k == KindCoreInteraction || k == KindCoreSuspension || k == KindCorePreparation ||
		k == KindCoreWorkspace
}

// RuntimeOnly reports whether steps of kind k concern the Runtime only
// (Core's runners ignore them).
func (k Kind) RuntimeOnly() bool {
	return k == KindHarness || k == KindSettle || k == KindRuntimeOwned
}

// Step is one parsed directive.
type Step struct {
	Pos      string // file:line of the directive
	Kind     Kind
	Side     Side // frames; silence; disconnect by=core
	Frame    *Frame
	Duration time.Duration     // advance, silence
	Action   string            // harness action, api call
	Args     map[string]string // remaining key=value arguments
	Input    string            // raw input (emit payload, API request body)
	Steps    []Step            // include: the included steps
}

// Scenario is one parsed file.
type Scenario struct {
	Name  string
	Path  string
	Steps []Step
	// Owners maps each placeholder name (without $) to the side that mints
	// it: the side whose frame first uses it.
	Owners map[string]Side
}

// Error is a parse error; Pos names file and line.
type Error struct {
	Pos string
	Msg string
}

func (e *Error) Error() string { return e.Pos + ": " + e.Msg }

// ParseFile reads and parses one scenario file; includes are read from
// the include directory next to it.
func ParseFile(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(filepath.Dir(path), "include")
	return Parse(path, string(b), func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, name+".txt"))
	})
}

// Parse parses the text of a scenario named path. include reads the
// text of an included file by name; nil forbids includes.
func Parse(path, text string, include func(name string) ([]byte, error)) (*Scenario, error) {
	steps, err := parseText(path, text, include, false)
	if err != nil {
		return nil, err
	}
	for i, st := range steps {
		if st.Kind == KindOnly && i != 0 {
			return nil, &Error{Pos: st.Pos, Msg: "only must be the first directive"}
		}
	}
	sc := &Scenario{Name: strings.TrimSuffix(filepath.Base(path), ".txt"), Path: path, Steps: steps, Owners: map[string]Side{}}
	if err := sc.assignOwners(steps); err != nil {
		return nil, err
	}
	return sc, nil
}

func parseText(path, text string, include func(string) ([]byte, error), nested bool) ([]Step, error) {
	ds, err := readDirectives(path, text)
	if err != nil {
		return nil, err
	}
	var steps []Step
	for _, d := range ds {
		st, err := parseDirective(d)
		if err != nil {
			return nil, err
		}
		if st.Kind == KindInclude {
			if st.Steps, err = parseInclude(d, st.Action, include, nested); err != nil {
				return nil, err
			}
		}
		steps = append(steps, st)
	}
	return steps, nil
}

func parseInclude(d directive, name string, include func(string) ([]byte, error), nested bool) ([]Step, error) {
	if nested {
		return nil, d.errf("include inside an included file")
	}
	if include == nil {
		return nil, d.errf("include %q: includes are not available here", name)
	}
	b, err := include(name)
	if err != nil {
		return nil, d.errf("include %q: %v", name, err)
	}
	return parseText("include/"+name+".txt", string(b), include, true)
}

func (d directive) errf(format string, args ...any) error {
	return &Error{Pos: d.pos, Msg: fmt.Sprintf(format, args...)}
}

// assignOwners records, in step order, the side that first uses each
// placeholder in a frame.
func (sc *Scenario) assignOwners(steps []Step) error {
	for _, st := range steps {
		if st.Kind == KindInclude {
			if err := sc.assignOwners(st.Steps); err != nil {
				return err
			}
			continue
		}
		if st.Frame == nil {
			continue
		}
		names, err := placeholdersOf(st.Frame)
		if err != nil {
			return &Error{Pos: st.Pos, Msg: err.Error()}
		}
		for _, n := range names {
			if _, ok := sc.Owners[n]; !ok {
				sc.Owners[n] = st.Side
			}
		}
	}
	return nil
}

// args collects key=value arguments, refusing repeats and keys not in allowed.
func (d directive) keyArgs(from int, allowed ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, a := range d.args[from:] {
		if !slices.Contains(allowed, a.Key) {
			return nil, d.errf("%s: unknown argument %q", d.cmd, a.Key)
		}
		if len(a.Vals) != 1 {
			return nil, d.errf("%s: argument %q needs one value", d.cmd, a.Key)
		}
		if _, dup := out[a.Key]; dup {
			return nil, d.errf("%s: argument %q repeated", d.cmd, a.Key)
		}
		out[a.Key] = a.Vals[0]
	}
	return out, nil
}

// positional returns the value-less argument at i.
func (d directive) positional(i int, what string) (string, error) {
	if len(d.args) <= i || len(d.args[i].Vals) != 0 {
		return "", d.errf("%s: missing %s", d.cmd, what)
	}
	return d.args[i].Key, nil
}

func (d directive) noInput() error {
	if d.input != "" {
		return d.errf("%s takes no input", d.cmd)
	}
	return nil
}

func parseDirective(d directive) (Step, error) {
	st := Step{Pos: d.pos, Kind: Kind(d.cmd)}
	var err error
	switch d.cmd {
	case string(Core), string(Runtime):
		st.Kind, st.Side = KindFrame, Side(d.cmd)
		st.Frame, err = parseFrame(d)
	case string(KindConnect), string(KindReconnect):
		if err = d.noInput(); err == nil {
			st.Args, err = d.keyArgs(0)
		}
	case string(KindDisconnect):
		if err = d.noInput(); err == nil {
			st.Args, err = d.keyArgs(0, "by")
		}
		if err == nil && st.Args["by"] != "" && st.Args["by"] != string(Core) {
			err = d.errf("disconnect: by=%q: only by=core is known", st.Args["by"])
		}
		if err == nil && st.Args["by"] == string(Core) {
			st.Side = Core
		}
	case string(KindAdvance):
		st.Duration, err = parseDuration(d, 0)
		if err == nil && len(d.args) > 1 {
			err = d.errf("advance takes one duration")
		}
	case string(KindSilence):
		st.Side, st.Duration, err = parseSilence(d)
	case string(KindSettle):
		if err = d.noInput(); err == nil {
			st.Args, err = d.keyArgs(0, "content", "session", "reusable", "reason", "error")
		}
		if err == nil && st.Args["reusable"] != "" && st.Args["reusable"] != "true" && st.Args["reusable"] != "false" {
			err = d.errf("settle: reusable=%q: want true or false", st.Args["reusable"])
		}
	default:
		return parseStepDirective(d, st)
	}
	return st, err
}

// parseStepDirective parses the harness, API, assertion and file-level
// directives.
func parseStepDirective(d directive, st Step) (Step, error) {
	var err error
	switch d.cmd {
	case string(KindHarness):
		st.Action, st.Args, st.Input, err = parseHarness(d)
	case string(KindAPI):
		st.Action, st.Args, err = parseAPI(d)
		st.Input = d.input
	case string(KindCorePreparation):
		st.Args, err = parseAssert(d, "", "state", "steps", "code")
	case string(KindCoreSuspension):
		st.Args, err = parseAssert(d, "", "state", "code", "rollback", "attempts")
	case string(KindCoreWorkspace):
		st.Args, err = parseAssert(d, "", "outcome", "code", "entries", "data", "truncated", "archive")
		if err == nil && st.Args["outcome"] == "" {
			err = d.errf("core-workspace: missing outcome=")
		}
	case string(KindCoreInteraction):
		st.Args, err = parseAssert(d, "id", "turn", "id", "kind", "status", "code", "attempts")
	case string(KindCoreState):
		st.Args, err = parseAssert(d, "turn", "turn", "state", "cursor", "code", "engine_code", "engine_status", "content", "attempt", "inputs", "usage")
	case string(KindRuntimeOwned):
		st.Args, err = parseAssert(d, "", "executors", "turns", "calls", "idle", "closing", "records")
		if err == nil {
			err = numericArgs(d, st.Args)
		}
	case string(KindVersionRefused):
		if err = d.noInput(); err == nil {
			st.Args, err = d.keyArgs(0, "version", "status", "code")
		}
		if err == nil && st.Args["version"] == "" {
			err = d.errf("version-refused: missing version=")
		}
	case string(KindOnly):
		var side string
		side, err = d.positional(0, "side")
		switch {
		case err != nil:
		case side != string(Core) && side != string(Runtime):
			err = d.errf("only: side %q: want core or runtime", side)
		case len(d.args) != 1 || d.input == "":
			err = d.errf("only takes one side and the reason as input")
		}
		st.Side, st.Input = Side(side), d.input
	case string(KindInclude):
		st.Action, err = d.positional(0, "include name")
		if err == nil && (len(d.args) != 1 || d.noInput() != nil) {
			err = d.errf("include takes one name and no input")
		}
	default:
		err = d.errf("unknown directive %q", d.cmd)
	}
	return st, err
}

func parseDuration(d directive, i int) (time.Duration, error) {
	s, err := d.positional(i, "duration")
	if err != nil {
		return 0, err
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return 0, d.errf("%s: bad duration %q", d.cmd, s)
	}
	return v, d.noInput()
}

func parseSilence(d directive) (Side, time.Duration, error) {
	side, err := d.positional(0, "side")
	if err != nil {
		return "", 0, err
	}
	if side != string(Core) && side != string(Runtime) {
		return "", 0, d.errf("silence: side %q: want core or runtime", side)
	}
	w, err := parseDuration(d, 1)
	if err == nil && (w == 0 || len(d.args) > 2) {
		err = d.errf("silence: want `silence <side> <window>` with a positive window")
	}
	return Side(side), w, err
}

func parseFrame(d directive) (*Frame, error) {
	typ, err := d.positional(0, "frame type")
	if err != nil {
		return nil, err
	}
	if _, ok := wire.ZeroPayload(typ); !ok {
		return nil, d.errf("%s: unknown frame type %q", d.cmd, typ)
	}
	f := &Frame{Type: typ, Payload: d.input}
	var rest []datadriven.CmdArg
	for _, a := range d.args[1:] {
		switch {
		case a.Key == "invalid" && len(a.Vals) == 0:
			f.Invalid, f.Rogue = true, true
		case a.Key == "rogue" && len(a.Vals) == 0:
			f.Rogue = true
		case a.Key == "lost" && len(a.Vals) == 0:
			f.Lost = true
		default:
			rest = append(rest, a)
		}
	}
	sub := d
	sub.args = rest
	args, err := sub.keyArgs(0, "id")
	if err != nil {
		return nil, err
	}
	f.ID = args["id"]
	if f.Lost && f.Rogue {
		return nil, d.errf("%s %s: a lost frame is one the sender does send; it cannot be rogue or invalid", d.cmd, typ)
	}
	if f.Payload == "" && !wire.Bodyless(typ) {
		return nil, d.errf("%s %s: missing JSON payload", d.cmd, typ)
	}
	if f.Payload != "" {
		tpl, err := parseTemplate(f.Payload)
		if err != nil {
			return nil, d.errf("%s %s: payload: %v", d.cmd, typ, err)
		}
		if !json.Valid([]byte(tpl.render(defaultValue))) {
			return nil, d.errf("%s %s: payload is not valid JSON", d.cmd, typ)
		}
	}
	if _, err := splitString(f.ID); err != nil {
		return nil, d.errf("%s %s: id: %v", d.cmd, typ, err)
	}
	return f, nil
}

func parseHarness(d directive) (string, map[string]string, string, error) {
	action, err := d.positional(0, "harness action")
	if err != nil {
		return "", nil, "", err
	}
	if !slices.Contains(HarnessActions, action) {
		return "", nil, "", d.errf("harness: unknown action %q", action)
	}
	if action == "file" {
		args, err := d.keyArgs(1, "environment", "path")
		if err == nil && (args["environment"] == "" || args["path"] == "") {
			err = d.errf("harness file: want environment= and path=, the content as input")
		}
		return action, args, d.input, err
	}
	if action != "emit" {
		if err := d.noInput(); err != nil {
			return "", nil, "", err
		}
		args, err := d.keyArgs(1)
		return action, args, "", err
	}
	typ, err := d.positional(1, "event type")
	if err != nil {
		return "", nil, "", err
	}
	if _, ok := wire.ZeroPayload(typ); !ok {
		return "", nil, "", d.errf("harness emit: unknown event type %q", typ)
	}
	if d.input == "" || !json.Valid([]byte(d.input)) {
		return "", nil, "", d.errf("harness emit %s: want a JSON payload as input", typ)
	}
	if len(d.args) > 2 {
		return "", nil, "", d.errf("harness emit takes one event type")
	}
	return action, map[string]string{"type": typ}, d.input, nil
}

func parseAPI(d directive) (string, map[string]string, error) {
	call, err := d.positional(0, "api call")
	if err != nil {
		return "", nil, err
	}
	allowed, ok := apiArgs[call]
	if !ok {
		return "", nil, d.errf("api: unknown call %q", call)
	}
	args, err := d.keyArgs(1, allowed...)
	if err != nil {
		return "", nil, err
	}
	if target, ok := apiTarget[call]; ok {
		switch {
		case args[target] == "":
			err = d.errf("api %s: missing %s=", call, target)
		case d.input == "" || !json.Valid([]byte(d.input)):
			err = d.errf("api %s: want the request body (JSON) as input", call)
		}
		return call, args, err
	}
	if call == "write-file" {
		return call, args, workspaceArgs(d, call, args)
	}
	if err := d.noInput(); err != nil {
		return "", nil, err
	}
	switch call {
	case "quiesce":
		if args["environment"] == "" {
			err = d.errf("api quiesce: missing environment=")
		}
		return call, args, err
	case "resume":
		if r := args["rollback"]; r != "" && r != "true" && r != "false" {
			err = d.errf("api resume: rollback=%q: want true or false", r)
		}
		return call, args, err
	case "read-directory", "read-file", "export":
		return call, args, workspaceArgs(d, call, args)
	}
	if call != "cancel" && args["text"] == "" {
		err = d.errf("api %s: missing text=", call)
	}
	return call, args, err
}

func parseAssert(d directive, required string, allowed ...string) (map[string]string, error) {
	if err := d.noInput(); err != nil {
		return nil, err
	}
	args, err := d.keyArgs(0, allowed...)
	if err != nil {
		return nil, err
	}
	if required != "" && args[required] == "" {
		return nil, d.errf("%s: missing %s=", d.cmd, required)
	}
	if len(args) == 0 || (required != "" && len(args) == 1) {
		return nil, d.errf("%s: nothing to assert", d.cmd)
	}
	return args, nil
}

func numericArgs(d directive, args map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if n, err := strconv.Atoi(args[k]); err != nil || n < 0 {
			return d.errf("%s: %s=%q is not a count", d.cmd, k, args[k])
		}
	}
	return nil
}

// Flat flattens includes: every step a runner executes, in order.
func (sc *Scenario) Flat() []Step {
	var out []Step
	for _, st := range sc.Steps {
		if st.Kind == KindInclude {
			out = append(out, st.Steps...)
			continue
		}
		out = append(out, st)
	}
	return out
}

// Declaration returns the scenario's first valid Runtime heartbeat, with
// every placeholder at its default: what the Runtime under test declares
// (kinds, capabilities, daemon version). ok is false when the Runtime
// never sends one.
func (sc *Scenario) Declaration() (hb wire.Heartbeat, ok bool, err error) {
	for _, st := range sc.Flat() {
		if st.Kind != KindFrame || st.Side != Runtime || st.Frame.Type != wire.TypeHeartbeat || st.Frame.Invalid {
			continue
		}
		raw, err := newBindings(sc, "").Peer(st.Frame)
		if err != nil {
			return wire.Heartbeat{}, false, &Error{Pos: st.Pos, Msg: err.Error()}
		}
		f, err := wire.Decode(raw)
		if err != nil {
			return wire.Heartbeat{}, false, &Error{Pos: st.Pos, Msg: "heartbeat does not decode: " + err.Error()}
		}
		return f.Payload.(wire.Heartbeat), true, nil
	}
	return wire.Heartbeat{}, false, nil
}

// workspaceArgs checks a workspace call's arguments: an Environment, and
// a positive limit when one is given.
func workspaceArgs(d directive, call string, args map[string]string) error {
	if args["environment"] == "" {
		return d.errf("api %s: missing environment=", call)
	}
	for _, k := range []string{"max_entries", "max_bytes"} {
		if v, ok := args[k]; ok {
			if n, err := strconv.Atoi(v); err != nil || n <= 0 {
				return d.errf("api %s: %s=%q is not a positive count", call, k, v)
			}
		}
	}
	return nil
}
