package core

import (
	"fmt"

	"github.com/turnstile-sim/turnstile/wire"
)

// A Session's Environment definition: what every connection installs
// through runtime_prepare before it runs the Session's work (seed: every
// connection initialises its Environment through runtime_prepare). Core
// turns it into ordered preparation steps — files, skills, plugins, then
// each setup command as an initialize header — and, before it prepares a
// Turn of the Session on a connection, runs them there once. Each step is
// recorded durably (EnvironmentPreparationRecord, Session set); the
// Turn is prepared only once every step completed. A preparation that
// ended otherwise on the connection (rejected, failed, or unknown:
// runtime_preparation_unconfirmed) fails each Turn dispatched there with
// that step's code; it is never replayed on the connection, and a later
// connection runs its own preparation with fresh transfer IDs.

// EnvironmentStepsMax bounds a definition's steps.
const EnvironmentStepsMax = 64

// EnvironmentDefinitionBytesMax bounds the sum of a definition's bodies
// (they are kept in the Session record).
const EnvironmentDefinitionBytesMax = 8 << 20

// EnvironmentDefinition is a Session's Environment contents.
type EnvironmentDefinition struct {
	Files   []EnvironmentFile    `json:",omitempty"`
	Skills  []EnvironmentPackage `json:",omitempty"`
	Plugins []EnvironmentPackage `json:",omitempty"`
	Setup   []EnvironmentSetup   `json:",omitempty"`
}

// EnvironmentFile is one file installed at Path (below /workspace).
// SHA256 is the lower-case hex SHA-256 of Content the Runtime checks
// before it installs anything (the caller computes it; Core checks its
// form, not its value).
type EnvironmentFile struct {
	Path    string
	SHA256  string
	Content []byte
}

// EnvironmentPackage is an inline skill or plugin archive. Slot is a
// plugin's slot (0 for skills).
type EnvironmentPackage struct {
	Name        string
	Description string
	Slot        int `json:",omitempty"`
	SHA256      string
	Content     []byte
}

// EnvironmentSetup is one setup command the Runtime runs under its
// process ownership; Network is "enabled" or "disabled" (empty:
// disabled).
type EnvironmentSetup struct {
	Command string
	Cwd     string `json:",omitempty"`
	Network string `json:",omitempty"`
}

func (d *EnvironmentDefinition) clone() *EnvironmentDefinition {
	if d == nil {
		return nil
	}
	c := &EnvironmentDefinition{}
	for _, f := range d.Files {
		f.Content = cloneBytes(f.Content)
		c.Files = append(c.Files, f)
	}
	for _, p := range d.Skills {
		p.Content = cloneBytes(p.Content)
		c.Skills = append(c.Skills, p)
	}
	for _, p := range d.Plugins {
		p.Content = cloneBytes(p.Content)
		c.Plugins = append(c.Plugins, p)
	}
	c.Setup = append(c.Setup, d.Setup...)
	return c
}

func bodyStep(action, sha string, body []byte) PrepareStep {
	return PrepareStep{Header: wire.RuntimePrepare{Action: action, SizeBytes: int64(len(body)), SHA256: sha}, Body: body}
}

// Steps lists the definition's preparation steps in install order.
func (d *EnvironmentDefinition) Steps() []PrepareStep {
	var out []PrepareStep
	for _, f := range d.Files {
		s := bodyStep(wire.PrepareActionFile, f.SHA256, f.Content)
		s.Header.File = &wire.PrepareFile{Path: f.Path}
		out = append(out, s)
	}
	for _, p := range d.Skills {
		s := bodyStep(wire.PrepareActionSkill, p.SHA256, p.Content)
		s.Header.Skill = &wire.PackageMeta{Type: wire.PackageTypeInline, Name: p.Name, Description: p.Description}
		out = append(out, s)
	}
	for _, p := range d.Plugins {
		s := bodyStep(wire.PrepareActionPlugin, p.SHA256, p.Content)
		s.Header.Plugin = &wire.PackageMeta{Type: wire.PackageTypeInline, Name: p.Name, Description: p.Description}
		s.Header.Slot = p.Slot
		out = append(out, s)
	}
	for _, c := range d.Setup {
		if c.Network == "" {
			c.Network = wire.NetworkDisabled
		}
		out = append(out, PrepareStep{Header: wire.RuntimePrepare{Action: wire.PrepareActionInitialize,
			Initialization: &wire.Initialization{Action: "setup", Command: c.Command, Cwd: c.Cwd, Network: c.Network}}})
	}
	return out
}

// validateDefinition checks a definition against the Session it belongs
// to, with the shared validator every step's begin header goes through.
func validateDefinition(d *EnvironmentDefinition, env EnvironmentKind, envID string) error {
	if d == nil {
		return nil
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: environment definition: "+format, append([]any{ErrInvalidConfig}, args...)...)
	}
	if env == EnvNone {
		return bad("environment none has nothing to prepare")
	}
	steps := d.Steps()
	total := 0
	for _, s := range steps {
		total += len(s.Body)
	}
	switch {
	case len(steps) == 0:
		return bad("no file, skill, plugin or setup command")
	case len(steps) > EnvironmentStepsMax:
		return bad("%d steps, at most %d", len(steps), EnvironmentStepsMax)
	case total > EnvironmentDefinitionBytesMax:
		return bad("%d bytes of content, at most %d", total, EnvironmentDefinitionBytesMax)
	}
	for i, c := range d.Setup {
		if c.Command == "" {
			return bad("setup[%d].command required", i)
		}
	}
	if _, err := checkSteps(envID, sessionUUID(1), steps); err != nil {
		return bad("%v", err)
	}
	return nil
}

// sessionUUID is the canonical UUID naming Session seq in runtime_prepare
// (the wire wants a UUID; Session IDs are not).
func sessionUUID(seq uint64) string {
	return fmt.Sprintf("5e551000-0000-4000-8000-%012x", seq&0xffffffffffff)
}
