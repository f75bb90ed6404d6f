package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// A schedule's JSON writes every duration as a Go duration string ("1.5s",
// exact to the nanosecond) and every key in snake_case. It still reads the
// integer nanoseconds (and the *_ns network keys) that older case files
// hold, so stored cases keep replaying.

// jsonDuration is a duration in a schedule's JSON.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *jsonDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = jsonDuration(v)
		return nil
	}
	var ns int64
	if err := json.Unmarshal(b, &ns); err != nil {
		return fmt.Errorf("duration: want a Go duration string or integer nanoseconds, got %s", b)
	}
	*d = jsonDuration(ns)
	return nil
}

// strictUnmarshal decodes b into v refusing unknown members and trailing
// data, as every stored schedule is read.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

type networkJSON struct {
	LatencyMin *jsonDuration `json:"latency_min,omitempty"`
	LatencyMax *jsonDuration `json:"latency_max,omitempty"`
	DetectMax  *jsonDuration `json:"detect_max,omitempty"`
	// older case files
	LatencyMinNS *int64 `json:"latency_min_ns,omitempty"`
	LatencyMaxNS *int64 `json:"latency_max_ns,omitempty"`
	DetectMaxNS  *int64 `json:"detect_max_ns,omitempty"`
}

func (c NetworkConfig) MarshalJSON() ([]byte, error) {
	lo, hi, det := jsonDuration(c.LatencyMin), jsonDuration(c.LatencyMax), jsonDuration(c.DetectMax)
	return json.Marshal(networkJSON{LatencyMin: &lo, LatencyMax: &hi, DetectMax: &det})
}

func (c *NetworkConfig) UnmarshalJSON(b []byte) error {
	var j networkJSON
	if err := strictUnmarshal(b, &j); err != nil {
		return err
	}
	pick := func(d *jsonDuration, ns *int64) int64 {
		switch {
		case d != nil:
			return int64(*d)
		case ns != nil:
			return *ns
		}
		return 0
	}
	*c = NetworkConfig{LatencyMin: pick(j.LatencyMin, j.LatencyMinNS), LatencyMax: pick(j.LatencyMax, j.LatencyMaxNS),
		DetectMax: pick(j.DetectMax, j.DetectMaxNS)}
	return nil
}

type faultJSON struct {
	At    jsonDuration `json:"at"`
	Kind  FaultKind    `json:"kind"`
	Node  NodeID       `json:"node,omitempty"`
	Pick  uint64       `json:"pick,omitempty"`
	For   jsonDuration `json:"for,omitempty"`
	Extra jsonDuration `json:"extra,omitempty"`
}

func (f Fault) MarshalJSON() ([]byte, error) {
	return json.Marshal(faultJSON{At: jsonDuration(f.At), Kind: f.Kind, Node: f.Node, Pick: f.Pick,
		For: jsonDuration(f.For), Extra: jsonDuration(f.Extra)})
}

func (f *Fault) UnmarshalJSON(b []byte) error {
	var j faultJSON
	if err := strictUnmarshal(b, &j); err != nil {
		return err
	}
	*f = Fault{At: time.Duration(j.At), Kind: j.Kind, Node: j.Node, Pick: j.Pick, For: time.Duration(j.For),
		Extra: time.Duration(j.Extra)}
	return nil
}

type kindSettingJSON struct {
	Kind FaultKind    `json:"kind"`
	Gap  jsonDuration `json:"gap"`
}

func (k KindSetting) MarshalJSON() ([]byte, error) {
	return json.Marshal(kindSettingJSON{Kind: k.Kind, Gap: jsonDuration(k.Gap)})
}

func (k *KindSetting) UnmarshalJSON(b []byte) error {
	var j kindSettingJSON
	if err := strictUnmarshal(b, &j); err != nil {
		return err
	}
	*k = KindSetting{Kind: j.Kind, Gap: time.Duration(j.Gap)}
	return nil
}

type scheduleJSON struct {
	Seed     uint64        `json:"seed"`
	Workload int           `json:"workload"`
	Heal     jsonDuration  `json:"heal"`
	Network  NetworkConfig `json:"network"`
	Enabled  []KindSetting `json:"enabled"`
	Faults   []Fault       `json:"faults"`
	Draws    Draws         `json:"draws,omitempty"`
}

func (s Schedule) MarshalJSON() ([]byte, error) {
	return json.Marshal(scheduleJSON{Seed: s.Seed, Workload: s.Workload, Heal: jsonDuration(s.Heal),
		Network: s.Network, Enabled: s.Enabled, Faults: s.Faults, Draws: s.Draws})
}

func (s *Schedule) UnmarshalJSON(b []byte) error {
	var j scheduleJSON
	if err := strictUnmarshal(b, &j); err != nil {
		return err
	}
	*s = Schedule{Seed: j.Seed, Workload: j.Workload, Heal: time.Duration(j.Heal), Network: j.Network,
		Enabled: j.Enabled, Faults: j.Faults, Draws: j.Draws}
	return nil
}
