package world

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/turnstile-sim/turnstile/sim/harness"
)

// Derived is what a seed drew about the world, beside its fault schedule:
// the devices with their declared kinds, capabilities and limits, the
// Harness's behaviour and the workload's shape. It is deterministic for a
// seed and configuration, and serializes to JSON (failure bundles write it
// into options.json).
type Derived struct {
	Devices  []DerivedDevice `json:"devices"`
	Harness  harness.Config  `json:"harness"`
	Workload DerivedWorkload `json:"workload"`
}

// DerivedDevice is one device's declaration and limits.
type DerivedDevice struct {
	ID     string        `json:"id"`
	Kinds  []DerivedKind `json:"kinds"`
	Limits DerivedLimits `json:"limits"`
}

// DerivedKind is one declared Harness kind; Unsupported lists the
// capabilities the device declares unsupported, sorted.
type DerivedKind struct {
	Kind        string   `json:"kind"`
	Version     string   `json:"version"`
	Available   bool     `json:"available"`
	Unsupported []string `json:"unsupported"`
}

// DerivedLimits are a device's daemon limits, durations as text.
type DerivedLimits struct {
	ActiveMax         int    `json:"active_max"`
	IdleExecutorsMax  int    `json:"idle_executors_max"`
	ExecutorsMax      int    `json:"executors_max"`
	AdmissionExpiry   string `json:"admission_expiry"`
	IdleExpiry        string `json:"idle_expiry"`
	NativeWriteBudget string `json:"native_write_budget"`
	HeartbeatInterval string `json:"heartbeat_interval"`
}

// DerivedWorkload is the workload's shape: its sessions and when each
// turn is submitted (virtual time since the start, in plan order).
type DerivedWorkload struct {
	Shape    string           `json:"shape"`
	Turns    int              `json:"turns"`
	Sessions []DerivedSession `json:"sessions"`
	Arrivals []string         `json:"arrivals"`
}

// DerivedSession is one session's agent configuration, summarised.
type DerivedSession struct {
	Environment   string `json:"environment"`
	OutputSchema  bool   `json:"output_schema"`
	MultiAgent    bool   `json:"multi_agent"`
	FunctionTools int    `json:"function_tools"`
	ToolSearch    bool   `json:"tool_search"`
	Images        bool   `json:"images"`
	TextVerbosity string `json:"text_verbosity,omitempty"`
	Turns         int    `json:"turns"`
}

// derived describes the universe after its run (the workload plans at its
// start).
func (u *universe) derived() Derived {
	d := Derived{Devices: []DerivedDevice{}}
	for _, dev := range u.devices {
		dd := DerivedDevice{ID: string(dev.ID), Kinds: []DerivedKind{}}
		for _, k := range dev.Daemon.Kinds {
			dd.Kinds = append(dd.Kinds, DerivedKind{Kind: k.Kind, Version: k.Version, Available: k.Available,
				Unsupported: unsupported(k.Capabilities)})
		}
		l := documentedLimits(dev.Daemon.Limits)
		dd.Limits = DerivedLimits{ActiveMax: l.ActiveMax, IdleExecutorsMax: l.IdleExecutorsMax,
			ExecutorsMax: l.ExecutorsMax, AdmissionExpiry: l.AdmissionExpiry.String(),
			IdleExpiry: l.IdleExpiry.String(), NativeWriteBudget: l.NativeWriteBudget.String(),
			HeartbeatInterval: dev.Daemon.WithDefaults().HeartbeatInterval.String()}
		d.Devices = append(d.Devices, dd)
		if len(d.Devices) == 1 {
			d.Harness = dev.Harness // the first device's: only it may prepare glacially
		}
	}
	wl := u.wl
	d.Workload = DerivedWorkload{Shape: string(u.shape), Turns: wl.total, Sessions: []DerivedSession{}, Arrivals: []string{}}
	for _, s := range wl.sessions {
		ds := DerivedSession{Environment: string(s.agent.Environment), OutputSchema: len(s.agent.OutputSchema) > 0,
			MultiAgent: s.agent.MultiAgent, FunctionTools: len(s.agent.FunctionTools),
			ToolSearch: s.agent.ToolSearch, Images: s.images, TextVerbosity: s.agent.TextVerbosity}
		for _, t := range wl.turns {
			if t.sess == s {
				ds.Turns++
			}
		}
		d.Workload.Sessions = append(d.Workload.Sessions, ds)
	}
	for _, at := range wl.arrivals {
		d.Workload.Arrivals = append(d.Workload.Arrivals, at.Round(time.Millisecond).String())
	}
	return d
}

// unsupported lists the capabilities declared unsupported, sorted.
func unsupported(caps any) []string {
	out := []string{}
	b, err := json.Marshal(caps)
	if err != nil {
		return []string{"unrenderable: " + err.Error()}
	}
	var m map[string]bool
	if json.Unmarshal(b, &m) != nil {
		return out
	}
	for k, ok := range m { //tidy:sorted sorted below
		if !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
