package check

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// The workspace register (rule linearizability): one partition "file
// <env>/<path>" per file the workload wrote or read through Core's API,
// whose value is the file's content or absence. The seeded content is a
// put before everything; a completed write a put within its call; a write
// answered unknown or never answered a put open until the horizon; a
// completed untruncated read a get of its data, not_found a get of
// absence. Writes answered rejected or unavailable are no puts: Core
// claims they changed nothing.

// fileVal is a file's content or absence.
type fileVal struct {
	value   string
	present bool
}

// fileModel is a register's state; known is false before the first
// operation (a file whose seed was never observed).
type fileModel struct {
	known bool
	val   fileVal
}

func stepFile(s fileModel, in linInput, out any) (bool, any) {
	if in.kind == opPut {
		return true, fileModel{known: true, val: in.file}
	}
	got, _ := out.(fileVal)
	if !s.known {
		return true, fileModel{known: true, val: got}
	}
	return got == s.val, s
}

func describeFile(v fileVal) string {
	if !v.present {
		return "absent"
	}
	return fmt.Sprintf("%q", v.value)
}

func (l *Ledger) fileOps(horizon int64) []porcupine.Operation {
	w := &l.ws
	for _, op := range w.writes {
		horizon = max(horizon, op.Call+1, op.Return+1)
	}
	for _, op := range w.reads {
		horizon = max(horizon, op.Call+1, op.Return+1)
	}
	for _, x := range w.exported {
		horizon = max(horizon, x.op.Call+1, x.op.Return+1)
	}
	parts := partitions{}
	part := func(env, path string) string { // the seed first
		key := "file " + env + "/" + path
		if s, ok := w.seeded[pairKey(env, path)]; ok && parts[key] == nil {
			parts.add(linInput{kind: opPut, part: key, file: s}, 0, 0, nil)
		}
		return key
	}
	for _, op := range w.writes {
		ret := op.Return
		switch op.Outcome {
		case "completed":
		case "unknown", "lost":
			ret = horizon
		default:
			continue
		}
		parts.add(linInput{kind: opPut, part: part(op.Env, op.Path), file: fileVal{value: op.Value, present: true}}, op.Call, ret, nil)
	}
	for _, op := range w.reads {
		var out fileVal
		switch {
		case op.Outcome == "completed" && !op.Truncated:
			out = fileVal{value: op.Value, present: true}
		case op.Outcome == "rejected" && op.Code == "not_found":
		default:
			continue
		}
		parts.add(linInput{kind: opGet, part: part(op.Env, op.Path)}, op.Call, op.Return, out)
	}
	w.exportGets(parts, part)
	return parts.ops()
}
