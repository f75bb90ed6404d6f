package fuzz

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

var update = flag.Bool("update", false, "rewrite the seed corpora")

const goldenDir = "../wire/testdata/golden"

// Payload families: each family target fuzzes the payloads of these types.
var families = map[string][]string{
	"FuzzAdmission": {wire.TypeExecutionPrepare, wire.TypeExecutionStart, wire.TypeExecutionRelease,
		wire.TypePreparationStatus, wire.TypePromptRequest},
	"FuzzRunOutput": {wire.TypeDelta, wire.TypeThinking, wire.TypeOutputMessage, wire.TypeToolCall,
		wire.TypeUsage, wire.TypeError, wire.TypeDone, wire.TypeSubagentIdentity, wire.TypeSubagentLifecycle,
		wire.TypeSubagentTurn, wire.TypeSubagentItem},
	"FuzzInteractions": {wire.TypePermissionRequest, wire.TypePermissionCancel, wire.TypePermissionDecision,
		wire.TypeUserChoicePrompt, wire.TypeUserChoiceDecision, wire.TypeInteractionDecisionAck,
		wire.TypePromptCancel, wire.TypeDeviceShutdown, wire.TypeFunctionCall, wire.TypeFunctionResult,
		wire.TypeAuthoringRequest, wire.TypeAuthoringResponse},
	"FuzzSteering": {wire.TypePromptSteer, wire.TypePromptSteerAck},
	"FuzzWorkspace": {wire.TypeWorkspaceRead, wire.TypeWorkspaceReadResult, wire.TypeEnvironmentQuiesce,
		wire.TypeEnvironmentResume, wire.TypeEnvironmentQuiesced, wire.TypeEnvironmentResumed},
	"FuzzTransfer": {wire.TypeRuntimePrepare, wire.TypeRuntimePrepareResult, wire.TypeWorkspaceWrite,
		wire.TypeWorkspaceWriteResult, wire.TypeWorkspaceExport, wire.TypeWorkspaceExportResult},
}

var sentinels = []error{
	wire.ErrUnknownType, wire.ErrUnknownField, wire.ErrDuplicateField, wire.ErrMissingField, wire.ErrNull,
	wire.ErrWrongType, wire.ErrTooLarge, wire.ErrInvalid, wire.ErrInvalidUTF8, wire.ErrSyntax, wire.ErrTrailingData,
}

// checkFrame is the shared property of every target.
func checkFrame(t *testing.T, frame []byte) (wire.Frame, bool) {
	f, err := wire.Decode(frame)
	if err != nil {
		for _, s := range sentinels {
			if errors.Is(err, s) {
				return wire.Frame{}, false
			}
		}
		t.Fatalf("unnamed error: %v", err)
	}
	sameAsEncodingJSON(t, frame, f)
	if d := wire.Describe(f); len(d) > 400 || strings.Contains(d, "\n") {
		t.Fatalf("Describe not one bounded line: %q", d)
	}
	if verr := wire.Validate(f.Payload); verr != nil {
		if _, err := wire.Encode(f); err == nil {
			t.Fatalf("encoded a payload that fails validation: %v", verr)
		}
		return f, false
	}
	b, err := wire.Encode(f)
	if errors.Is(err, wire.ErrTooLarge) {
		return f, false // escaping can grow a frame near the limit
	}
	if err != nil {
		t.Fatalf("valid frame does not encode: %v", err)
	}
	g, err := wire.Decode(b)
	if err != nil {
		t.Fatalf("own encoding rejected: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(f, g) {
		t.Fatalf("round trip differs\n got %#v\nwant %#v", g, f)
	}
	return f, true
}

// sameAsEncodingJSON: an accepted frame reads the same through
// encoding/json, an independent and more lenient decoder: it accepts the
// frame, and its ID and payload equal Decode's once both payloads are
// marshalled (which compacts raw members and omits empty optional
// collections, the forms Decode normalises). The error run event is left
// out: its lenient members are read by a rule of their own (§6.3), held
// to its statement by wire's differential tests.
func sameAsEncodingJSON(t *testing.T, frame []byte, f wire.Frame) {
	t.Helper()
	if f.Type() == wire.TypeError {
		return
	}
	var env struct {
		ID      string          `json:"id"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(frame, &env); err != nil {
		t.Fatalf("accepted frame that encoding/json rejects: %v", err)
	}
	zero, _ := wire.ZeroPayload(f.Type())
	pv := reflect.New(reflect.TypeOf(zero))
	if env.Payload != nil {
		if err := json.Unmarshal(env.Payload, pv.Interface()); err != nil {
			t.Fatalf("accepted payload that encoding/json rejects: %v", err)
		}
	}
	got, gerr := json.Marshal(f.Payload)
	want, werr := json.Marshal(pv.Elem().Interface())
	if gerr != nil || werr != nil || string(got) != string(want) || env.ID != f.ID {
		t.Fatalf("Decode and encoding/json read the frame differently\n Decode %q %s %v\n  json  %q %s %v", f.ID, got, gerr, env.ID, want, werr)
	}
}

// familyFrame builds a frame from fuzz input: the first byte picks the
// type, the rest is the payload (an empty rest means no payload).
func familyFrame(types []string, data []byte) []byte {
	if len(data) == 0 {
		return nil
	}
	typ := types[int(data[0])%len(types)]
	frame := `{"type":"` + typ + `","id":"fuzz"`
	if len(data) > 1 {
		frame += `,"payload":` + string(data[1:])
	}
	return []byte(frame + "}")
}

// goldenSeeds returns, sorted by type, the golden frames and payloads.
func goldenSeeds(t testing.TB) (types []string, frames map[string][]byte, payloads map[string][]byte) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden fixtures in %s: %v", goldenDir, err)
	}
	frames, payloads = map[string][]byte{}, map[string][]byte{}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var env wire.Envelope
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		types = append(types, env.Type)
		frames[env.Type] = []byte(strings.TrimSpace(string(b)))
		payloads[env.Type] = env.Payload
	}
	sort.Strings(types)
	return types, frames, payloads
}

// seedsFor lists the seeds of one target, in a stable order.
func seedsFor(t testing.TB, name string) [][]byte {
	types, frames, payloads := goldenSeeds(t)
	var out [][]byte
	switch name {
	case "FuzzDecodeEnvelope":
		for _, typ := range types {
			out = append(out, frames[typ])
		}
	case "FuzzCapabilities":
		var hb struct {
			Kinds []struct {
				Capabilities json.RawMessage `json:"capabilities"`
			} `json:"supported_agent_kinds"`
		}
		if err := json.Unmarshal(payloads[wire.TypeHeartbeat], &hb); err != nil || len(hb.Kinds) == 0 {
			t.Fatalf("golden heartbeat: %v", err)
		}
		out = append(out, hb.Kinds[0].Capabilities)
	case "FuzzUserChoiceDecision":
		out = append(out, payloads[wire.TypeUserChoiceDecision],
			[]byte(`{"delivery_id":"d","cancelled":true,"reason":"user"}`),
			[]byte(`{"delivery_id":"d","question_answers":[{"question_id":"q2","answers":[]}]}`))
	default:
		for i, typ := range families[name] {
			if p, ok := payloads[typ]; ok {
				out = append(out, append([]byte{byte(i)}, p...))
			} else {
				out = append(out, []byte{byte(i)})
			}
		}
	}
	for _, s := range rejectSeeds[name] {
		out = append(out, rejectSeedBytes(name, s))
	}
	return out
}

func addSeeds(f *testing.F, name string) {
	for _, s := range seedsFor(f, name) {
		f.Add(s)
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	addSeeds(f, "FuzzDecodeEnvelope")
	f.Fuzz(func(t *testing.T, frame []byte) { checkFrame(t, frame) })
}

func fuzzFamily(f *testing.F, name string) {
	addSeeds(f, name)
	types := families[name]
	f.Fuzz(func(t *testing.T, data []byte) {
		if frame := familyFrame(types, data); frame != nil {
			checkFrame(t, frame)
		}
	})
}

func FuzzAdmission(f *testing.F)    { fuzzFamily(f, "FuzzAdmission") }
func FuzzRunOutput(f *testing.F)    { fuzzFamily(f, "FuzzRunOutput") }
func FuzzInteractions(f *testing.F) { fuzzFamily(f, "FuzzInteractions") }
func FuzzSteering(f *testing.F)     { fuzzFamily(f, "FuzzSteering") }
func FuzzWorkspace(f *testing.F)    { fuzzFamily(f, "FuzzWorkspace") }
func FuzzTransfer(f *testing.F)     { fuzzFamily(f, "FuzzTransfer") }

// FuzzCapabilities fuzzes one capability object inside a heartbeat: an
// accepted declaration is complete (every member decided).
func FuzzCapabilities(f *testing.F) {
	addSeeds(f, "FuzzCapabilities")
	f.Fuzz(func(t *testing.T, caps []byte) {
		frame := `{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"k","available":true,"capabilities":` + string(caps) + `}]}}`
		fr, err := wire.Decode([]byte(frame))
		if err != nil {
			checkFrame(t, []byte(frame))
			return
		}
		decl := fr.Payload.(wire.Heartbeat).SupportedAgentKinds[0].Capabilities
		if err := decl.Validate(); err != nil {
			t.Fatalf("accepted an incomplete declaration: %v", err)
		}
		checkFrame(t, []byte(frame))
	})
}

// FuzzUserChoiceDecision fuzzes a decision against the issued questions
// q1, q2, q3.
func FuzzUserChoiceDecision(f *testing.F) {
	addSeeds(f, "FuzzUserChoiceDecision")
	questions := []wire.UserQuestion{{ID: "q1"}, {ID: "q2"}, {ID: "q3"}}
	f.Fuzz(func(t *testing.T, payload []byte) {
		frame := []byte(`{"type":"prompt_for_user_choice_decision","id":"ask","payload":` + string(payload) + `}`)
		fr, ok := checkFrame(t, frame)
		if !ok {
			return
		}
		d := fr.Payload.(wire.UserChoiceDecision)
		if err := d.ValidateAgainst(questions); err != nil {
			return
		}
		if d.Cancelled && len(d.QuestionAnswers) > 0 {
			t.Fatal("cancelled decision with answers accepted")
		}
		seen := map[string]bool{}
		for _, a := range d.QuestionAnswers {
			if seen[a.QuestionID] || a.Answers == nil || (a.QuestionID != "q1" && a.QuestionID != "q2" && a.QuestionID != "q3") {
				t.Fatalf("accepted answer %+v", a)
			}
			seen[a.QuestionID] = true
		}
	})
}

// fuzzTargets lists every target with a checked-in corpus.
var fuzzTargets = []string{"FuzzDecodeEnvelope", "FuzzAdmission", "FuzzRunOutput", "FuzzInteractions",
	"FuzzSteering", "FuzzWorkspace", "FuzzTransfer", "FuzzCapabilities", "FuzzUserChoiceDecision"}

// TestSeedCorpus keeps testdata/fuzz/<FuzzName>/ in step with the golden
// fixtures. NB: `go test ./fuzz -update` rewrites it; review the diff.
func TestSeedCorpus(t *testing.T) {
	covered := map[string]bool{}
	for _, types := range families {
		for _, typ := range types {
			if covered[typ] {
				t.Errorf("%s is in two families", typ)
			}
			covered[typ] = true
		}
	}
	for _, typ := range wire.Types() {
		if !covered[typ] && typ != wire.TypeHeartbeat {
			t.Errorf("type %s has no fuzz family", typ)
		}
	}
	for _, name := range fuzzTargets {
		for i, seed := range seedsFor(t, name) {
			path := filepath.Join("testdata", "fuzz", name, fmt.Sprintf("seed-%02d", i))
			want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seed)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != want {
				t.Errorf("%s is stale or missing (run go test ./fuzz -update): %v", path, err)
			}
		}
	}
}
