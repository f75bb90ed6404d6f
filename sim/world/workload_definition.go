package world

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// Seeded Environment definitions of the Agents: a third of the Sessions
// with an Environment carry one (files, a skill, a plugin, setup
// commands), so Core drives runtime_prepare on every connection before
// the Session's Turns run there. Bodies span one to three 64 KiB chunks
// (sometimes several files); one in thirty declares a wrong SHA-256, and
// one setup command in sixteen exits non-zero, so a connection's preparation
// is rejected or failed and the Session's Turns there fail with its code.
// Draws come from their own stream, so the other workload draws are
// unchanged.

func (wl *workload) drawDefinition(a *core.AgentConfig, i int) {
	if wl.defs == nil {
		wl.defs = wl.u.w.Rand("workload:definition")
	}
	r := wl.defs
	if a.Environment == core.EnvNone || r.IntN(3) != 0 {
		return
	}
	d := &core.EnvironmentDefinition{}
	for j := range r.IntN(3) {
		content, sum := drawBody(r)
		d.Files = append(d.Files, core.EnvironmentFile{Path: "/workspace/sim/def-" + strconv.Itoa(i) + "-" + strconv.Itoa(j) + ".bin",
			SHA256: sum, Content: content})
	}
	if r.IntN(3) == 0 {
		content, sum := drawBody(r)
		d.Skills = []core.EnvironmentPackage{{Name: "sim-skill-" + strconv.Itoa(i), Description: "a seeded skill", SHA256: sum, Content: content}}
	}
	if r.IntN(4) == 0 {
		content, sum := drawBody(r)
		d.Plugins = []core.EnvironmentPackage{{Name: "sim-plugin-" + strconv.Itoa(i), Description: "a seeded plugin",
			Slot: r.IntN(wire.PluginSlotMax + 1), SHA256: sum, Content: content}}
	}
	if r.IntN(2) == 0 || len(d.Files)+len(d.Skills)+len(d.Plugins) == 0 {
		command := "make setup"
		if r.IntN(16) == 0 {
			command = "exit " + strconv.Itoa(1+r.IntN(255))
		}
		d.Setup = []core.EnvironmentSetup{{Command: command}}
	}
	a.Definition = d
}

// drawBody draws a body of one to three chunks and its SHA-256, wrong in
// one draw of thirty.
func drawBody(r *rand.Rand) ([]byte, string) {
	body := make([]byte, 1+r.IntN(3*wire.ChunkBytesMax))
	for i := 0; i < len(body); i += 8 {
		v := r.Uint64()
		for j := i; j < min(i+8, len(body)); j++ {
			body[j] = byte(v >> (8 * (j - i)))
		}
	}
	sum := sha256.Sum256(body)
	if r.IntN(30) == 0 {
		sum[len(sum)-1] ^= 0x01
	}
	return body, hex.EncodeToString(sum[:])
}
