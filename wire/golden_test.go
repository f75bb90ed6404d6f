package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// NB: `go test ./wire -update` rewrites the golden fixtures under
// testdata/golden from sampleFrames. Review the diff before committing it:
// a changed fixture is a changed wire format.
var update = flag.Bool("update", false, "rewrite golden fixtures")

const goldenDir = "testdata/golden"

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test ./wire -update)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the encoding:\n got %s\nwant %s", path, got, want)
	}
}

func TestGoldenEveryType(t *testing.T) {
	seen := map[string]bool{}
	var lines []string
	for _, f := range sampleFrames() {
		typ := f.Type()
		seen[typ] = true
		b, err := Encode(f)
		if err != nil {
			t.Fatalf("%s: encode: %v", typ, err)
		}
		checkGolden(t, typ+".json", append(b, '\n'))
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: decode: %v", typ, err)
		}
		if !reflect.DeepEqual(got, f) {
			t.Errorf("%s: round trip\n got %#v\nwant %#v", typ, got, f)
		}
		lines = append(lines, Describe(f))
	}
	for _, typ := range Types() {
		if !seen[typ] {
			t.Errorf("type %s has no sample frame and no golden fixture", typ)
		}
	}
	checkGolden(t, "describe.txt", []byte(strings.Join(lines, "\n")+"\n"))
}

// TestGoldenFilesDecode reads every fixture back, so a stale fixture for a
// removed type fails too.
func TestGoldenFilesDecode(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil || len(files) != len(Types()) {
		t.Fatalf("%d fixtures for %d types (%v)", len(files), len(Types()), err)
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Decode(bytes.TrimSuffix(b, []byte("\n")))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if want := strings.TrimSuffix(filepath.Base(path), ".json"); f.Type() != want {
			t.Errorf("%s decodes as %s", path, f.Type())
		}
		if err := Validate(f.Payload); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// TestCapabilityFieldsExhaustive fails when a capability is added without
// a decision: Fields must list every struct field, under its JSON name,
// and match the members of the golden heartbeat.
func TestCapabilityFieldsExhaustive(t *testing.T) {
	var c AgentKindCapabilities
	fields := c.Fields()
	typ := reflect.TypeOf(c)
	if len(fields) != typ.NumField() {
		t.Fatalf("Fields lists %d members, struct has %d", len(fields), typ.NumField())
	}
	for i, f := range fields {
		if tag := typ.Field(i).Tag.Get("json"); tag != f.Name {
			t.Errorf("field %d: Fields says %s, tag says %s", i, f.Name, tag)
		}
		*f.Value = CapabilitySupported
	}
	if reflect.ValueOf(c).FieldByIndex([]int{len(fields) - 1}).Interface() != CapabilitySupported {
		t.Error("Fields pointers do not reach the struct")
	}
	raw, err := os.ReadFile(filepath.Join(goldenDir, "heartbeat.json"))
	if err != nil {
		t.Fatal(err)
	}
	var hb struct {
		Payload struct {
			Kinds []struct {
				Capabilities map[string]json.RawMessage `json:"capabilities"`
			} `json:"supported_agent_kinds"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(raw, &hb); err != nil || len(hb.Payload.Kinds) != 1 {
		t.Fatalf("golden heartbeat: %v", err)
	}
	members := hb.Payload.Kinds[0].Capabilities
	if len(members) != len(fields) {
		t.Fatalf("golden heartbeat has %d capability members, Fields has %d", len(members), len(fields))
	}
	for _, f := range fields {
		if v := string(members[f.Name]); v != "true" && v != "false" {
			t.Errorf("golden heartbeat: %s = %q", f.Name, v)
		}
	}
}

// TestEveryPayloadHasValidator keeps Validate total: every registered
// payload type has its own Validate method.
func TestEveryPayloadHasValidator(t *testing.T) {
	for _, typ := range Types() {
		zero, _ := ZeroPayload(typ)
		if _, ok := zero.(interface{ Validate() error }); !ok {
			t.Errorf("%s has no Validate method", typ)
		}
	}
}
