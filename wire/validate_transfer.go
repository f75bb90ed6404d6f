package wire

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// runtime_prepare actions, initialization actions and network values.
const (
	PrepareActionSkill      = "skill"
	PrepareActionPlugin     = "plugin"
	PrepareActionFile       = "file"
	PrepareActionInitialize = "initialize"
	PrepareActionFinalize   = "finalize"

	InitConfigure = "configure"
	InitNPM       = "npm"
	InitPython    = "python"
	InitSetup     = "setup"

	NetworkEnabled  = "enabled"
	NetworkDisabled = "disabled"

	PackageTypeInline = "inline"
	WorkspaceRoot     = "/workspace"
)

var skillNamePattern = regexp.MustCompile(`^[a-z0-9]+([-_][a-z0-9]+)*$`)

// skillNameBytesMax bounds a skill name.
const skillNameBytesMax = 64

// Validate checks one runtime_prepare step (wire-reference §3.2).
func (p RuntimePrepare) Validate() error {
	const f = "runtime_prepare"
	switch p.Step {
	case StepBegin:
		return p.validateBegin(f)
	case StepChunk, StepCommit:
		if p.EnvironmentID != "" || p.SessionID != "" || p.Action != "" || p.Slot != 0 ||
			p.Skill != nil || p.Plugin != nil || p.Sources != nil || p.File != nil ||
			p.Initialization != nil || p.SizeBytes != 0 || p.SHA256 != "" {
			return invalid(f, "%s carries no begin members", p.Step)
		}
		return validateChunkOrCommit(f, p.Step, p.Offset, len(p.Data))
	}
	return invalid(f+".step", "unknown step")
}

func validateChunkOrCommit(f, step string, offset int64, n int) error {
	if step == StepCommit {
		if offset != 0 || n != 0 {
			return invalid(f, "commit carries no offset or data")
		}
		return nil
	}
	switch {
	case offset < 0 || offset > TransferBytesMax:
		return invalid(f+".offset", "outside 0..%d", TransferBytesMax)
	case n < 1 || n > ChunkBytesMax:
		return invalid(f+".data", "chunk needs 1..%d bytes", ChunkBytesMax)
	case int64(n) > TransferBytesMax-offset:
		return tooLarge(f+".data", n, int(TransferBytesMax-offset))
	}
	return nil
}

func (p RuntimePrepare) validateBegin(f string) error {
	if err := canonicalUUID(p.EnvironmentID, f+".environment_id"); err != nil {
		return err
	}
	if err := canonicalUUID(p.SessionID, f+".session_id"); err != nil {
		return err
	}
	if p.Offset != 0 || len(p.Data) != 0 {
		return invalid(f, "begin carries no offset or data")
	}
	present := 0
	for _, ok := range []bool{p.Skill != nil, p.Plugin != nil, p.Sources != nil, p.File != nil, p.Initialization != nil} {
		if ok {
			present++
		}
	}
	if present != 1 {
		return invalid(f, "exactly one of skill, plugin, sources, file, initialization")
	}
	if err := p.validateAction(f); err != nil {
		return err
	}
	if n := encodedLen(p); n > RuntimePrepareBytesMax {
		return tooLarge(f, n, RuntimePrepareBytesMax)
	}
	return nil
}

func (p RuntimePrepare) validateAction(f string) error {
	slotZero := func() error {
		if p.Slot != 0 {
			return invalid(f+".slot", "only plugins carry a slot")
		}
		return nil
	}
	noBody := func() error {
		if p.SizeBytes != 0 || p.SHA256 != "" {
			return invalid(f+".size_bytes", "%s carries no body", p.Action)
		}
		return slotZero()
	}
	switch p.Action {
	case PrepareActionSkill:
		if p.Skill == nil {
			return missing(f + ".skill")
		}
		return firstErr(slotZero(), p.Skill.validate(f+".skill", true), p.validateBody(f, false))
	case PrepareActionPlugin:
		if p.Plugin == nil {
			return missing(f + ".plugin")
		}
		if p.Slot < 0 || p.Slot > PluginSlotMax {
			return invalid(f+".slot", "outside 0..%d", PluginSlotMax)
		}
		return firstErr(p.Plugin.validate(f+".plugin", false), p.validateBody(f, false))
	case PrepareActionFile:
		if p.File == nil {
			return missing(f + ".file")
		}
		return firstErr(slotZero(), logicalPath(p.File.Path, f+".file.path", false), p.validateBody(f, true))
	case PrepareActionInitialize:
		if p.Initialization == nil {
			return missing(f + ".initialization")
		}
		return firstErr(noBody(), p.Initialization.validate(f+".initialization"))
	case PrepareActionFinalize:
		if p.Sources == nil {
			return missing(f + ".sources")
		}
		return firstErr(noBody(), validateSources(p.Sources, f+".sources"))
	}
	return invalid(f+".action", "unknown action")
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// validateBody checks digest and size of an archive or file body.
func (p RuntimePrepare) validateBody(f string, emptyAllowed bool) error {
	if !lowerHexDigest(p.SHA256) {
		return invalid(f+".sha256", "must be 64 lower-case hex digits")
	}
	if p.SizeBytes < 0 || p.SizeBytes > TransferBytesMax || (p.SizeBytes == 0 && !emptyAllowed) {
		return invalid(f+".size_bytes", "outside the allowed range")
	}
	return nil
}

func lowerHexDigest(s string) bool { return len(s) == 64 && lowerHex(s) }

func (m *PackageMeta) validate(f string, skill bool) error {
	switch {
	case m.Type != PackageTypeInline:
		return invalid(f+".type", "must be inline")
	case m.Name == "":
		return missing(f + ".name")
	case m.Description == "":
		return missing(f + ".description")
	case skill && (len(m.Name) > skillNameBytesMax || !skillNamePattern.MatchString(m.Name)):
		return invalid(f+".name", "not a valid skill name")
	}
	return nil
}

// logicalPath applies the logical workspace path rule: at most 4096 bytes,
// UTF-8, already clean, no backslash/NUL/CR/LF, below /workspace/ (or the
// root itself where allowed).
func logicalPath(p, f string, rootAllowed bool) error {
	switch {
	case len(p) > WorkspacePathBytesMax:
		return tooLarge(f, len(p), WorkspacePathBytesMax)
	case !utf8.ValidString(p) || path.Clean(p) != p || strings.ContainsAny(p, "\\\x00\r\n"):
		return invalid(f, "not a clean logical path")
	case p == WorkspaceRoot && rootAllowed:
		return nil
	case !strings.HasPrefix(p, WorkspaceRoot+"/"):
		return invalid(f, "must be below %s", WorkspaceRoot)
	}
	return nil
}

func (in *Initialization) validate(f string) error {
	if in.Network != "" && in.Network != NetworkEnabled && in.Network != NetworkDisabled {
		return invalid(f+".network", "must be enabled or disabled")
	}
	switch in.Action {
	case InitConfigure:
		if in.Packages != nil || in.Command != "" || in.Cwd != "" {
			return invalid(f, "configure carries only env and network")
		}
		return validateEnv(in.Env, f+".env")
	case InitNPM, InitPython:
		if in.Env != nil || in.Command != "" || in.Cwd != "" {
			return invalid(f, "%s carries only packages and network", in.Action)
		}
		if in.Network == "" {
			return missing(f + ".network")
		}
		return validatePackages(in.Packages, f+".packages")
	case InitSetup:
		if in.Env != nil || in.Packages != nil {
			return invalid(f, "setup carries no env or packages")
		}
		if in.Network == "" {
			return missing(f + ".network")
		}
		if in.Command == "" || !utf8.ValidString(in.Command) || strings.ContainsRune(in.Command, 0) {
			return invalid(f+".command", "must be non-empty UTF-8 without NUL")
		}
		if in.Cwd != "" {
			return logicalPath(in.Cwd, f+".cwd", true)
		}
		return nil
	}
	return invalid(f+".action", "unknown initialization action")
}

func validateEnv(env map[string]string, f string) error {
	if len(env) > InitializationEntriesMax {
		return tooLarge(f, len(env), InitializationEntriesMax)
	}
	// Every entry is checked and the verdict does not depend on which
	// entry is found first, so iteration order cannot reach the output.
	bad := false
	for k, v := range env {
		bad = bad || k == "" || !utf8.ValidString(k) || strings.ContainsAny(k, "=\x00\r\n") ||
			!utf8.ValidString(v) || strings.ContainsRune(v, 0)
	}
	if bad {
		return invalid(f, "invalid entry")
	}
	return nil
}

func validatePackages(pkgs []string, f string) error {
	if len(pkgs) < 1 || len(pkgs) > InitializationEntriesMax {
		return invalid(f, "needs 1..%d packages", InitializationEntriesMax)
	}
	for i, p := range pkgs {
		if p == "" || p[0] == '-' || !utf8.ValidString(p) || strings.ContainsAny(p, "\x00\r\n") {
			return invalid(f, "invalid package at index %d", i)
		}
	}
	return nil
}

// canonicalUUID requires the lower-case canonical text form of a non-nil UUID.
func canonicalUUID(s, f string) error {
	if !CanonicalUUID(s) {
		return invalid(f, "not a canonical non-nil UUID")
	}
	return nil
}

// CanonicalUUID reports whether s is a non-nil UUID in lower-case
// canonical 8-4-4-4-12 form.
func CanonicalUUID(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	hex := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	return lowerHexNonZero(hex)
}
