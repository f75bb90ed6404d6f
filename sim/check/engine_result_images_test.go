package check

import (
	"testing"

	"github.com/turnstile-sim/turnstile/wire"
)

const resultImagesUnqualified = EngineUnqualified + "function_result_images"

func TestEngineResultImagesAcceptedUnqualifiedIsCaught(t *testing.T) {
	p := engineProfile() // function tools, no function_result_images
	l := NewLedger()
	l.EnginePolicy(0, []EngineProfileFacts{p})
	l.FunctionResultAnswered(1, "t-1", testSpec(), resultImagesUnqualified)
	l.FunctionResultAnswered(2, "t-1", testSpec(), "refused: core: capability unsupported by the runtime")
	wantClean(t, l)
	if l.marks[MarkResultImagesUnqualified] != 1 {
		t.Fatalf("marks %v, want %s once", l.Marks(), MarkResultImagesUnqualified)
	}
	l.FunctionResultAnswered(3, "t-1", testSpec(), "")
	wantViolation(t, l, CheckEngineResultImages, "does not qualify function_result_images")
}

func TestEngineResultImagesRefusedQualifiedIsCaught(t *testing.T) {
	p := engineProfile()
	p.FunctionResultImages = true
	l := NewLedger()
	l.EnginePolicy(0, []EngineProfileFacts{p})
	l.FunctionResultAnswered(1, "t-1", testSpec(), "")
	wantClean(t, l)
	l.FunctionResultAnswered(2, "t-1", testSpec(), resultImagesUnqualified)
	wantViolation(t, l, CheckEngineResultImages, "qualifies function_result_images")
}

func TestEngineResultImagesSentUnqualifiedIsCaught(t *testing.T) {
	result := func(parts ...wire.InputContent) wire.Frame {
		return wire.Frame{ID: "t-1", Payload: wire.FunctionResult{DeliveryID: "d", CallID: "c1", Success: true, Content: parts}}
	}
	l, w := prepareWorld(testSpec(), allKind())
	l.EnginePolicy(*w.now, []EngineProfileFacts{engineProfile()})
	w.coreSends(1, "d1", prepareFrame("p1", "s1", goodConfig("s1")))
	w.coreSends(1, "d1", startFrame("p1", "h1", "t-1", wire.TextInput("x")))
	w.coreSends(1, "d1", result(wire.TextPart("42")))
	if vs := violationsOf(l, CheckEngineResultImages); len(vs) > 0 {
		t.Fatalf("unexpected: %v", vs)
	}
	w.coreSends(1, "d1", result(wire.TextPart("see"), wire.ImagePart("https://example.com/r.png")))
	wantViolation(t, l, CheckEngineResultImages, "Core sent a function result with images")
}
