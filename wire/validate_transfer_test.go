package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

func beginWith(mut func(*RuntimePrepare)) RuntimePrepare {
	p := sampleFrames()[1].Payload.(RuntimePrepare)
	mut(&p)
	return p
}

func TestValidateRuntimePrepare(t *testing.T) {
	init := func(in Initialization) func(*RuntimePrepare) {
		return func(p *RuntimePrepare) {
			p.Action, p.Skill, p.SizeBytes, p.SHA256, p.Initialization = PrepareActionInitialize, nil, 0, "", &in
		}
	}
	runValidatorCases(t, []validatorCase{
		{"skill", beginWith(func(*RuntimePrepare) {}), nil, "", ""},
		{"upper-case uuid", beginWith(func(p *RuntimePrepare) { p.EnvironmentID = strings.ToUpper(p.EnvironmentID) }), ErrInvalid, "runtime_prepare.environment_id", ""},
		{"nil uuid", beginWith(func(p *RuntimePrepare) { p.SessionID = "00000000-0000-0000-0000-000000000000" }), ErrInvalid, "runtime_prepare.session_id", ""},
		{"two metadata objects", beginWith(func(p *RuntimePrepare) { p.Plugin = p.Skill }), ErrInvalid, "exactly one", ""},
		{"action mismatch", beginWith(func(p *RuntimePrepare) { p.Action = PrepareActionPlugin }), ErrMissingField, "runtime_prepare.plugin", ""},
		{"unknown action", beginWith(func(p *RuntimePrepare) { p.Action = "exec" }), ErrInvalid, "runtime_prepare.action", ""},
		{"skill reference type", beginWith(func(p *RuntimePrepare) { p.Skill = &PackageMeta{Type: "reference", Name: "a", Description: "d"} }), ErrInvalid, "skill.type", ""},
		{"skill empty description", beginWith(func(p *RuntimePrepare) { p.Skill = &PackageMeta{Type: "inline", Name: "a"} }), ErrMissingField, "skill.description", ""},
		{"skill bad name", beginWith(func(p *RuntimePrepare) { p.Skill = &PackageMeta{Type: "inline", Name: "Bad Name", Description: "d"} }), ErrInvalid, "skill.name", ""},
		{"skill slot", beginWith(func(p *RuntimePrepare) { p.Slot = 1 }), ErrInvalid, "runtime_prepare.slot", ""},
		{"upper digest", beginWith(func(p *RuntimePrepare) { p.SHA256 = strings.ToUpper(sampleDigest) }), ErrInvalid, "runtime_prepare.sha256", ""},
		{"zero size", beginWith(func(p *RuntimePrepare) { p.SizeBytes = 0 }), ErrInvalid, "runtime_prepare.size_bytes", ""},
		{"over 50 MiB", beginWith(func(p *RuntimePrepare) { p.SizeBytes = TransferBytesMax + 1 }), ErrInvalid, "size_bytes", ""},
		{"begin with data", beginWith(func(p *RuntimePrepare) { p.Data = []byte("x") }), ErrInvalid, "runtime_prepare", ""},
		{"plugin slot 49", beginWith(func(p *RuntimePrepare) { p.Action, p.Plugin, p.Skill, p.Slot = PrepareActionPlugin, p.Skill, nil, 49 }), nil, "", ""},
		{"plugin slot 50", beginWith(func(p *RuntimePrepare) { p.Action, p.Plugin, p.Skill, p.Slot = PrepareActionPlugin, p.Skill, nil, 50 }), ErrInvalid, "runtime_prepare.slot", ""},
		{"empty file", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.File, p.SizeBytes = PrepareActionFile, nil, &PrepareFile{Path: "/workspace/a.txt"}, 0
		}), nil, "", ""},
		{"file at root", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.File = PrepareActionFile, nil, &PrepareFile{Path: "/workspace"}
		}), ErrInvalid, "file.path", ""},
		{"file unclean", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.File = PrepareActionFile, nil, &PrepareFile{Path: "/workspace/a/../../etc"}
		}), ErrInvalid, "file.path", ""},
		{"configure", beginWith(init(Initialization{Action: InitConfigure, Env: map[string]string{"A": "1"}})), nil, "", ""},
		{"configure bad key", beginWith(init(Initialization{Action: InitConfigure, Env: map[string]string{"A=B": "1"}})), ErrInvalid, "initialization.env", ""},
		{"configure with command", beginWith(init(Initialization{Action: InitConfigure, Command: "x"})), ErrInvalid, "initialization", ""},
		{"npm", beginWith(init(Initialization{Action: InitNPM, Network: NetworkEnabled, Packages: []string{"left-pad"}})), nil, "", ""},
		{"npm flag package", beginWith(init(Initialization{Action: InitNPM, Network: NetworkEnabled, Packages: []string{"--global"}})), ErrInvalid, "initialization.packages", ""},
		{"npm no network", beginWith(init(Initialization{Action: InitNPM, Packages: []string{"a"}})), ErrMissingField, "initialization.network", ""},
		{"python no packages", beginWith(init(Initialization{Action: InitPython, Network: NetworkDisabled})), ErrInvalid, "initialization.packages", ""},
		{"setup", beginWith(init(Initialization{Action: InitSetup, Network: NetworkDisabled, Command: "make", Cwd: "/workspace"})), nil, "", ""},
		{"setup empty env present", beginWith(init(Initialization{Action: InitSetup, Network: NetworkDisabled, Command: "make", Env: map[string]string{}})), ErrInvalid, "initialization", ""},
		{"setup bad network", beginWith(init(Initialization{Action: InitSetup, Network: "open", Command: "make"})), ErrInvalid, "initialization.network", ""},
		{"exec action", beginWith(init(Initialization{Action: "exec"})), ErrInvalid, "initialization.action", ""},
		{"initialize with digest", beginWith(func(p *RuntimePrepare) {
			init(Initialization{Action: InitConfigure})(p)
			p.SHA256 = sampleDigest
		}), ErrInvalid, "size_bytes", ""},
		{"finalize", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.SizeBytes, p.SHA256 = PrepareActionFinalize, nil, 0, ""
			p.Sources = json.RawMessage(`{"directories":["skills","plugins/x"]}`)
		}), nil, "", ""},
		{"finalize escape", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.SizeBytes, p.SHA256 = PrepareActionFinalize, nil, 0, ""
			p.Sources = json.RawMessage(`{"directories":["../etc"]}`)
		}), ErrInvalid, "sources.directories[0]", ""},
		{"finalize duplicate", beginWith(func(p *RuntimePrepare) {
			p.Action, p.Skill, p.SizeBytes, p.SHA256 = PrepareActionFinalize, nil, 0, ""
			p.Sources = json.RawMessage(`{"directories":["a","a"]}`)
		}), ErrInvalid, "sources.directories[1]", ""},
		{"chunk", RuntimePrepare{Step: StepChunk, Offset: 10, Data: []byte("abc")}, nil, "", ""},
		{"chunk empty", RuntimePrepare{Step: StepChunk}, ErrInvalid, "runtime_prepare.data", ""},
		{"chunk too big", RuntimePrepare{Step: StepChunk, Data: make([]byte, ChunkBytesMax+1)}, ErrInvalid, "runtime_prepare.data", ""},
		{"chunk past 50 MiB", RuntimePrepare{Step: StepChunk, Offset: TransferBytesMax - 1, Data: []byte("ab")}, ErrTooLarge, "runtime_prepare.data", ""},
		{"chunk with header", RuntimePrepare{Step: StepChunk, Action: "skill", Data: []byte("a")}, ErrInvalid, "runtime_prepare", ""},
		{"commit", RuntimePrepare{Step: StepCommit}, nil, "", ""},
		{"commit with offset", RuntimePrepare{Step: StepCommit, Offset: 3}, ErrInvalid, "runtime_prepare", ""},
		{"unknown step", RuntimePrepare{Step: "abort"}, ErrInvalid, "runtime_prepare.step", ""},
	})
}
