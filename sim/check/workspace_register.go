package check

import (
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/turnstile-sim/turnstile/sim/linearize"
)

// The workspace register (rule linearizability, judged by linearize's
// file model): one partition "file <env>/<path>" per file the workload
// wrote or read through Core's API, whose value is the file's content or
// absence. The seeded content is a put before everything; a completed
// write a put within its call; a write answered unknown or never answered
// a put open until the horizon; a completed untruncated read a get of its
// data, not_found a get of absence; a completed export a get of every
// seeded file of its Environment. Writes answered rejected or
// unavailable are no puts: Core claims they changed nothing.

// fileOps builds the file partitions, the seed of each first.
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
	parts := linearize.Partitions{}
	part := func(env, path string) string { // the seed first
		key := "file " + env + "/" + path
		if s, ok := w.seeded[pairKey(env, path)]; ok && parts[key] == nil {
			parts.Add(linearize.Input{Op: linearize.OpPut, Part: key, File: s}, 0, 0, nil)
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
		parts.Add(linearize.Input{Op: linearize.OpPut, Part: part(op.Env, op.Path), File: linearize.File{Value: op.Value, Present: true}}, op.Call, ret, nil)
	}
	for _, op := range w.reads {
		var out linearize.File
		switch {
		case op.Outcome == "completed" && !op.Truncated:
			out = linearize.File{Value: op.Value, Present: true}
		case op.Outcome == "rejected" && op.Code == "not_found":
		default:
			continue
		}
		parts.Add(linearize.Input{Op: linearize.OpGet, Part: part(op.Env, op.Path)}, op.Call, op.Return, out)
	}
	for _, x := range w.exported {
		for _, key := range sortedKeys(w.seeded) {
			env, path, _ := strings.Cut(key, "\x00")
			if env != x.op.Env {
				continue
			}
			v, ok := x.files[path]
			parts.Add(linearize.Input{Op: linearize.OpGet, Part: part(env, path)}, x.op.Call, x.op.Return, linearize.File{Value: v, Present: ok})
		}
	}
	return parts.Ops()
}
