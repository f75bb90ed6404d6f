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

// Step kinds: one per directive of README.md, "Directives" (frame: a
// core or runtime frame).
const (
	KindFrame           Kind = "frame"
	KindConnect         Kind = "connect"
	KindReconnect       Kind = "reconnect"
	KindDisconnect      Kind = "disconnect"
	KindAdvance         Kind = "advance"
	KindSilence         Kind = "silence"
	KindSettle          Kind = "settle"
	KindHarness         Kind = "harness"
	KindAPI             Kind = "api"
	KindCoreState       Kind = "core-state"
	KindCoreInteraction Kind = "core-interaction"
	KindCoreSubagents   Kind = "core-subagents"
	KindCoreSuspension  Kind = "core-suspension"
	KindCorePreparation Kind = "core-preparation"
	KindCoreWorkspace   Kind = "core-workspace"
	KindRuntimeOwned    Kind = "runtime-owned"
	KindVersionRefused  Kind = "version-refused"
	KindInclude         Kind = "include"
	KindOnly            Kind = "only"
)

// Epoch is a scenario's first instant on the machine runners and the
// time of what a harness file step lays down.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// KeepaliveInterval is how often a scripted Runtime repeats its last
// heartbeat while time advances (the bootstrap's default cadence).
const KeepaliveInterval = 15 * time.Second

// HarnessActions are the controlled adapter's actions (README.md,
// "Harness actions").
var HarnessActions = []string{"fail-setup", "hang-setup", "fail-start", "hang-cancel", "hang-settle", "uncertain-write", "hang-write",
	"release", "hold-apply", "apply", "close-failure", "late-event", "emit", "file"}

// spec is what a directive or an api call takes: the arguments it
// allows (args, and members: those an assertion compares, at least one
// listed), those it requires, and its input.
type spec struct {
	args, members, required []string
	input                   input
}

type input int

const (
	noInput   input = iota
	anyInput        // taken as it is (a file's content)
	jsonInput       // a JSON value
)

// specs are the directives that take key=value arguments only.
var specs = map[Kind]spec{
	KindConnect:    {},
	KindReconnect:  {},
	KindDisconnect: {args: []string{"by"}},
	KindSettle:     {args: []string{"content", "session", "reusable", "reason", "error"}},
	KindCoreState: {args: []string{"turn"}, required: []string{"turn"},
		members: []string{"state", "cursor", "code", "engine_code", "engine_status", "content", "attempt", "inputs", "usage"}},
	KindCoreInteraction: {args: []string{"turn", "id"}, required: []string{"id"}, members: []string{"kind", "status", "code", "attempts"}},
	KindCoreSubagents:   {args: []string{"turn"}, members: []string{"count", "observations"}},
	KindCoreSuspension:  {members: []string{"state", "code", "rollback", "attempts"}},
	KindCorePreparation: {members: []string{"state", "steps", "code"}},
	KindCoreWorkspace:   {required: []string{"outcome"}, members: []string{"outcome", "code", "entries", "data", "truncated", "archive"}},
	KindRuntimeOwned:    {members: ownedCounts},
	KindVersionRefused:  {args: []string{"version", "status", "code"}, required: []string{"version"}},
}

// ownedCounts are runtime-owned's members, each a count.
var ownedCounts = []string{"executors", "turns", "calls", "idle", "closing", "records"}

// Members are the members a step of kind k asserts, in the order its
// transcript line lists them.
func (k Kind) Members() []string { return specs[k].members }

var environment = []string{"environment"}

// apiCalls are the api calls of README.md, "Directives".
var apiCalls = map[string]spec{
	"submit-turn":         {args: []string{"text", "kind", "multi_agent"}, required: []string{"text"}},
	"steer":               {args: []string{"text", "turn"}, required: []string{"text"}},
	"cancel":              {args: []string{"turn"}},
	"answer-permission":   {args: []string{"interaction", "turn", "refused"}, required: []string{"interaction"}, input: jsonInput},
	"answer-choice":       {args: []string{"interaction", "turn", "refused"}, required: []string{"interaction"}, input: jsonInput},
	"function-result":     {args: []string{"call", "turn", "refused"}, required: []string{"call"}, input: jsonInput},
	"quiesce":             {args: []string{"environment", "refused"}, required: environment},
	"resume":              {args: []string{"rollback", "refused"}},
	"prepare-environment": {args: []string{"environment", "session", "refused"}, required: environment, input: jsonInput},
	"read-directory":      {args: []string{"environment", "path", "max_entries"}, required: environment},
	"read-file":           {args: []string{"environment", "path", "max_bytes"}, required: environment},
	"write-file":          {args: []string{"environment", "path"}, required: environment, input: anyInput},
	"export":              {args: []string{"environment", "session", "refused"}, required: environment},
}

// Frame is a frame a scenario step sends.
type Frame struct {
	Type    string
	ID      string // may hold placeholders
	Payload string // JSON text, may hold placeholders; empty for bodyless types
	// The flags of README.md, "Directives": Invalid implies Rogue.
	Invalid, Rogue, Lost bool
}

// sideOf is the side each one-sided kind concerns (the other side's
// runners ignore its steps).
var sideOf = map[Kind]Side{KindAPI: Core, KindCoreState: Core, KindCoreInteraction: Core, KindCoreSubagents: Core, KindCoreSuspension: Core,
	KindCorePreparation: Core, KindCoreWorkspace: Core, KindHarness: Runtime, KindSettle: Runtime, KindRuntimeOwned: Runtime}

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
	Name   string
	Path   string
	Steps  []Step
	Owners map[string]Side // placeholder name (no $) → the side minting it
}

// Error is a parse error; Pos names file and line.
type Error struct {
	Pos string
	Msg string
}

func (e *Error) Error() string { return e.Pos + ": " + e.Msg }

// ParseFile reads and parses one scenario file (includes from the
// include directory beside it).
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
	sc.assignOwners()
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

// assignOwners records the side whose frame first uses each placeholder.
func (sc *Scenario) assignOwners() {
	for _, st := range sc.Flat() {
		if st.Frame == nil {
			continue
		}
		id, _ := splitString(st.Frame.ID)
		payload, _ := parseTemplate(st.Frame.Payload)
		for _, seg := range append(id, payload...) {
			if _, ok := sc.Owners[seg.name]; seg.name != "" && !ok {
				sc.Owners[seg.name] = st.Side
			}
		}
	}
}

// check reads a directive's key=value arguments from the from'th on and
// its input, as sp allows; errors name the directive name.
func (d directive) check(name string, sp spec, from int) (map[string]string, error) {
	args := map[string]string{}
	for _, a := range d.args[from:] {
		_, dup := args[a.Key]
		switch {
		case !slices.Contains(sp.args, a.Key) && !slices.Contains(sp.members, a.Key):
			return nil, d.errf("%s: unknown argument %q", name, a.Key)
		case len(a.Vals) != 1:
			return nil, d.errf("%s: argument %q needs one value", name, a.Key)
		case dup:
			return nil, d.errf("%s: argument %q repeated", name, a.Key)
		}
		args[a.Key] = a.Vals[0]
	}
	for _, k := range sp.required {
		if args[k] == "" {
			return nil, d.errf("%s: missing %s=", name, k)
		}
	}
	switch {
	case len(sp.members) > 0 && !slices.ContainsFunc(sp.members, func(k string) bool { _, ok := args[k]; return ok }):
		return nil, d.errf("%s: nothing to assert", name)
	case sp.input == noInput && d.input != "":
		return nil, d.errf("%s takes no input", name)
	case sp.input == jsonInput && (d.input == "" || !json.Valid([]byte(d.input))):
		return nil, d.errf("%s: want the request body (JSON) as input", name)
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		v := args[k]
		n, err := strconv.Atoi(v)
		switch {
		case (k == "reusable" || k == "rollback") && v != "" && v != "true" && v != "false":
			return nil, d.errf("%s: %s=%q: want true or false", name, k, v)
		case k == "by" && v != "" && v != string(Core):
			return nil, d.errf("%s: by=%q: only by=core is known", name, v)
		case slices.Contains(ownedCounts, k) && (err != nil || n < 0):
			return nil, d.errf("%s: %s=%q is not a count", name, k, v)
		case (k == "max_entries" || k == "max_bytes") && (err != nil || n <= 0):
			return nil, d.errf("%s: %s=%q is not a positive count", name, k, v)
		}
	}
	return args, nil
}

// positional returns the value-less argument at i.
func (d directive) positional(i int, what string) (string, error) {
	if len(d.args) <= i || len(d.args[i].Vals) != 0 {
		return "", d.errf("%s: missing %s", d.cmd, what)
	}
	return d.args[i].Key, nil
}

// side returns the side named at i.
func (d directive) side(i int) (Side, error) {
	s, err := d.positional(i, "side")
	if err == nil && s != string(Core) && s != string(Runtime) {
		err = d.errf("%s: side %q: want core or runtime", d.cmd, s)
	}
	return Side(s), err
}

// duration returns the duration at i of a directive that takes no input.
func (d directive) duration(i int) (time.Duration, error) {
	s, err := d.positional(i, "duration")
	if err != nil {
		return 0, err
	}
	v, err := time.ParseDuration(s)
	switch {
	case err != nil || v < 0:
		return 0, d.errf("%s: bad duration %q", d.cmd, s)
	case d.input != "":
		return 0, d.errf("%s takes no input", d.cmd)
	}
	return v, nil
}

func parseDirective(d directive) (st Step, err error) {
	st = Step{Pos: d.pos, Kind: Kind(d.cmd), Input: d.input}
	switch st.Kind {
	case Kind(Core), Kind(Runtime):
		st.Kind, st.Side = KindFrame, Side(d.cmd)
		st.Frame, err = parseFrame(d)
	case KindAdvance:
		st.Duration, err = d.duration(0)
		if err == nil && len(d.args) > 1 {
			err = d.errf("advance takes one duration")
		}
	case KindSilence:
		if st.Side, err = d.side(0); err == nil {
			st.Duration, err = d.duration(1)
		}
		if err == nil && (st.Duration == 0 || len(d.args) > 2) {
			err = d.errf("silence: want `silence <side> <window>` with a positive window")
		}
	case KindHarness:
		st.Action, st.Args, err = parseHarness(d)
	case KindAPI:
		if st.Action, err = d.positional(0, "api call"); err != nil {
			return st, err
		}
		sp, ok := apiCalls[st.Action]
		if !ok {
			return st, d.errf("api: unknown call %q", st.Action)
		}
		st.Args, err = d.check("api "+st.Action, sp, 1)
	case KindOnly:
		st.Side, err = d.side(0)
		if err == nil && (len(d.args) != 1 || d.input == "") {
			err = d.errf("only takes one side and the reason as input")
		}
	case KindInclude:
		st.Action, err = d.positional(0, "include name")
		if err == nil && (len(d.args) != 1 || d.input != "") {
			err = d.errf("include takes one name and no input")
		}
	default:
		sp, ok := specs[st.Kind]
		if !ok {
			return st, d.errf("unknown directive %q", d.cmd)
		}
		st.Args, err = d.check(d.cmd, sp, 0)
		if st.Kind == KindDisconnect && st.Args["by"] == string(Core) {
			st.Side = Core
		}
	}
	return st, err
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
	sub := directive{pos: d.pos, cmd: d.cmd}
	flags := map[string]*bool{"invalid": &f.Invalid, "rogue": &f.Rogue, "lost": &f.Lost}
	for _, a := range d.args[1:] {
		if flag := flags[a.Key]; flag != nil && len(a.Vals) == 0 {
			*flag = true
		} else {
			sub.args = append(sub.args, a)
		}
	}
	f.Rogue = f.Rogue || f.Invalid
	args, err := sub.check(d.cmd, spec{args: []string{"id"}}, 0)
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

// parseHarness reads a harness action.
func parseHarness(d directive) (string, map[string]string, error) {
	action, err := d.positional(0, "harness action")
	if err != nil {
		return "", nil, err
	}
	switch {
	case action == "file":
		args, err := d.check("harness file", spec{args: []string{"environment", "path"}, required: []string{"environment", "path"}, input: anyInput}, 1)
		return action, args, err
	case action != "emit":
		if !slices.Contains(HarnessActions, action) {
			return "", nil, d.errf("harness: unknown action %q", action)
		}
		args, err := d.check("harness "+action, spec{}, 1)
		return action, args, err
	}
	typ, err := d.positional(1, "event type")
	if err != nil {
		return "", nil, err
	}
	if _, ok := wire.ZeroPayload(typ); !ok {
		return "", nil, d.errf("harness emit: unknown event type %q", typ)
	}
	if d.input == "" || !json.Valid([]byte(d.input)) {
		return "", nil, d.errf("harness emit %s: want a JSON payload as input", typ)
	}
	if len(d.args) > 2 {
		return "", nil, d.errf("harness emit takes one event type")
	}
	return action, map[string]string{"type": typ}, nil
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

// Declaration returns the scenario's first valid Runtime heartbeat, every
// placeholder at its default (README.md, "Declaration"); ok: there is one.
func (sc *Scenario) Declaration() (hb wire.Heartbeat, ok bool, err error) {
	for _, st := range sc.Flat() {
		if st.Kind != KindFrame || st.Side != Runtime || st.Frame.Type != wire.TypeHeartbeat || st.Frame.Invalid {
			continue
		}
		raw, _ := newBindings(sc, "").Peer(st.Frame) // every value a default: parsing checked it
		f, err := wire.Decode(raw)
		if err != nil {
			return wire.Heartbeat{}, false, &Error{Pos: st.Pos, Msg: "heartbeat does not decode: " + err.Error()}
		}
		return f.Payload.(wire.Heartbeat), true, nil
	}
	return wire.Heartbeat{}, false, nil
}

// ControlPath is the control channel's route on the scripted Core's
// listener (README.md, "Testing a Runtime").
const ControlPath = "/conform/control"

// ControlCommand is one command of the control channel (README.md,
// "Testing a Runtime").
type ControlCommand struct {
	Seq     int               `json:"seq"`
	Action  string            `json:"action"`
	Type    string            `json:"type,omitempty"`
	Payload json.RawMessage   `json:"payload,omitempty"`
	Args    map[string]string `json:"args,omitempty"`
}

// ControlReply answers the command with the same Seq.
type ControlReply struct {
	Seq   int            `json:"seq"`
	Error string         `json:"error,omitempty"`
	Owned map[string]int `json:"owned,omitempty"`
}

// HarnessCommand is the control command of a harness step.
func HarnessCommand(st Step) ControlCommand {
	cmd := ControlCommand{Action: st.Action, Type: st.Args["type"], Payload: json.RawMessage(st.Input)}
	if st.Action == "file" {
		content, _ := json.Marshal(st.Input)
		cmd.Type, cmd.Payload = "", content
		cmd.Args = map[string]string{"environment": st.Args["environment"], "path": st.Args["path"]}
	}
	return cmd
}

// directive is one raw directive of a file, read without a testing.T so
// that every error can name its line.
type directive struct {
	pos   string
	cmd   string
	args  []datadriven.CmdArg
	input string
}

// readDirectives splits text in the datadriven layout (README.md, "File
// layout"; after a second "----", the output ends at a doubled "----").
func readDirectives(name, text string) ([]directive, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []directive
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pos := fmt.Sprintf("%s:%d", name, i+1)
		if line == "----" {
			return nil, &Error{Pos: pos, Msg: "separator ---- without a directive"}
		}
		cmd, args, err := datadriven.ParseLine(line)
		if err != nil {
			return nil, &Error{Pos: pos, Msg: err.Error()}
		}
		d := directive{pos: pos, cmd: cmd, args: args}
		var input []string
		sep := false
		for i++; i < len(lines); i++ {
			if lines[i] == "----" {
				sep = true
				break
			}
			input = append(input, lines[i])
		}
		if !sep {
			return nil, &Error{Pos: pos, Msg: fmt.Sprintf("directive %q has no ---- separator", cmd)}
		}
		d.input = strings.TrimSpace(strings.Join(input, "\n"))
		i = skipExpected(lines, i+1)
		out = append(out, d)
	}
	return out, nil
}

// skipExpected returns the index of the last line of the expected output
// that starts at lines[i].
func skipExpected(lines []string, i int) int {
	if i < len(lines) && lines[i] == "----" {
		for j := i + 1; j+1 < len(lines); j++ {
			if lines[j] == "----" && lines[j+1] == "----" {
				return j + 1
			}
		}
		return len(lines) - 1
	}
	for ; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" {
			return i
		}
	}
	return len(lines) - 1
}
