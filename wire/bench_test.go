package wire

import (
	"bytes"
	"encoding/json"
	"testing"
)

func benchDeltaFrame(b *testing.B) []byte {
	b.Helper()
	frame, err := Encode(Frame{ID: "run-0001", Payload: Delta{ItemID: "item-1", Delta: "The quick brown fox jumps over the lazy dog.", Sequence: 42}})
	if err != nil {
		b.Fatal(err)
	}
	return frame
}

func benchHeartbeat() Frame {
	return Frame{Payload: Heartbeat{TS: 1760000000000, ActiveRequests: 2, DaemonVersion: "1.2.3",
		SupportedAgentKinds: []SupportedAgentKind{{Kind: "codex", Available: true, Version: "0.9", Capabilities: AllCapabilities(CapabilitySupported)}}}}
}

// BenchmarkDecodeDelta is the strict decode of a delta frame. Compare it
// with BenchmarkDecodeDeltaPlainUnmarshal (target: at most 2×).
func BenchmarkDecodeDelta(b *testing.B) {
	frame := benchDeltaFrame(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeDeltaPlainUnmarshal is the baseline: one json.Unmarshal of
// the same frame bytes into an envelope holding the same payload struct.
func BenchmarkDecodeDeltaPlainUnmarshal(b *testing.B) {
	frame := benchDeltaFrame(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		var env struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Payload Delta  `json:"payload"`
			Trace   string `json:"trace"`
		}
		if err := json.Unmarshal(frame, &env); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeDelta(b *testing.B) {
	f := Frame{ID: "run-0001", Payload: Delta{ItemID: "item-1", Delta: "The quick brown fox jumps over the lazy dog.", Sequence: 42}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeHeartbeatFullCapabilities(b *testing.B) {
	frame, err := Encode(benchHeartbeat())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeHeartbeatFullCapabilities(b *testing.B) {
	f := benchHeartbeat()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnvelopeRoundTrip is Encode then Decode of a delta frame.
func BenchmarkEnvelopeRoundTrip(b *testing.B) {
	f := Frame{ID: "run-0001", Payload: Delta{ItemID: "item-1", Delta: "The quick brown fox jumps over the lazy dog.", Sequence: 42}}
	b.ReportAllocs()
	for b.Loop() {
		frame, err := Encode(f)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeDeltaReference is BenchmarkDecodeDelta through the
// test's reference decoder (the walk without building, then
// encoding/json, then canonicalize): the ratio of the two is what
// building the value in the same walk saves.
func BenchmarkDecodeDeltaReference(b *testing.B) {
	frame := benchDeltaFrame(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := decodeReference(frame); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeHeartbeatFullCapabilitiesReference(b *testing.B) {
	frame, err := Encode(benchHeartbeat())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := decodeReference(frame); err != nil {
			b.Fatal(err)
		}
	}
}

func benchPrepareFrame(b *testing.B) []byte {
	b.Helper()
	frame, err := Encode(Frame{ID: "prepare-0001", Payload: samplePrepare()})
	if err != nil {
		b.Fatal(err)
	}
	return frame
}

// BenchmarkDecodeExecutionPrepare decodes an execution_prepare with raw
// agent_options (which the decoder keeps in compact form).
func BenchmarkDecodeExecutionPrepare(b *testing.B) {
	frame := benchPrepareFrame(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeExecutionPrepareReference(b *testing.B) {
	frame := benchPrepareFrame(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := decodeReference(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodePadded decodes a heartbeat padded with whitespace to near
// the frame limit, as a hostile peer sends one.
func BenchmarkDecodePadded(b *testing.B) {
	hb, err := Encode(Frame{Payload: Heartbeat{TS: 1, DaemonVersion: "rogue"}})
	if err != nil {
		b.Fatal(err)
	}
	frame := append(hb[:len(hb)-1:len(hb)-1], bytes.Repeat([]byte{' '}, FrameBytesMax-len(hb)-3)...)
	frame = append(frame, "\t\n}"...)
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, err := Decode(frame); err != nil {
			b.Fatal(err)
		}
	}
}
