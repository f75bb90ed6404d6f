package linearize

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

// fileHistory is one file's partition: the seed put at 0 then ops.
func fileHistory(ops ...func(h history)) []porcupine.Operation {
	h := newHistory()
	h.Add(Input{Op: OpPut, Part: "file e/a.txt", File: File{Value: "seed", Present: true}}, 0, 0, nil)
	for _, op := range ops {
		op(h)
	}
	return h.ops()
}

func put(value string, call, ret int64) func(h history) {
	return func(h history) {
		h.Add(Input{Op: OpPut, Part: "file e/a.txt", File: File{Value: value, Present: true}}, call, ret, nil)
	}
}

func get(v File, call, ret int64) func(h history) {
	return func(h history) { h.Add(Input{Op: OpGet, Part: "file e/a.txt"}, call, ret, v) }
}

func has(value string) File { return File{Value: value, Present: true} }

// The workspace register accepts a read of the seed, of a completed write
// and of a write still open, and refuses a value no put wrote, a stale
// value after a completed write, and absence after a write.
func TestFileRegister(t *testing.T) {
	for _, c := range []struct {
		name string
		ops  []porcupine.Operation
		want porcupine.CheckResult
	}{
		{"seed, then written values", fileHistory(get(has("seed"), 5, 8), put("one", 10, 20), get(has("one"), 25, 30),
			put("two", 40, 100), get(has("two"), 50, 60), get(has("two"), 70, 80)), porcupine.Ok},
		{"a write that may land after a read", fileHistory(put("one", 10, 100), get(has("seed"), 20, 30), get(has("one"), 40, 50)), porcupine.Ok},
		{"an unobserved file takes its first read", []porcupine.Operation{
			{Input: Input{Op: OpGet, Part: "file e/b.txt"}, Call: 1, Return: 2, Output: File{}}}, porcupine.Ok},
		{"never written", fileHistory(get(has("ghost"), 50, 60)), porcupine.Illegal},
		{"stale", fileHistory(put("one", 10, 20), get(has("seed"), 50, 60)), porcupine.Illegal},
		{"absent after a write", fileHistory(put("one", 10, 20), get(File{}, 50, 60)), porcupine.Illegal},
		{"a value read back to an older one", fileHistory(put("one", 10, 100), get(has("one"), 20, 30), get(has("seed"), 40, 50)), porcupine.Illegal},
	} {
		if res := Check(c.ops, Options{}); res.Result != c.want {
			t.Errorf("%s: %s, want %s", c.name, res, c.want)
		}
	}
}

// File operations read as the visualization shows them.
func TestFileOperationsInWords(t *testing.T) {
	for _, c := range []struct {
		in   Input
		out  any
		want string
	}{
		{Input{Op: OpPut, File: has("v1")}, nil, `write "v1"`},
		{Input{Op: OpGet}, File{}, "read -> absent"},
		{Input{Op: OpGet}, has("v2"), `read -> "v2"`},
	} {
		if got := describeOperation(c.in, c.out); got != c.want {
			t.Errorf("describeOperation = %q, want %q", got, c.want)
		}
	}
}
