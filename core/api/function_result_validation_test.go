package api_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/wire"
)

// errResultTooLong is the test profile's native function result limit.
var errResultTooLong = errors.New("function result longer than 8 characters")

// TestToolResultRunsTheProfilesValidation: a tool_result event is checked
// by the engine profile's function result validation: a refused one is a
// 400 engine_unqualified naming the function result, writes nothing and
// sends nothing, and the call still takes a result within the limit.
func TestToolResultRunsTheProfilesValidation(t *testing.T) {
	prof := enginetest.Open("contract", false, false)
	prof.FunctionResultValidation = engine.AdditionalValidation
	prof.ValidateFunctionResult = func(r wire.FunctionResult) error {
		for _, c := range r.Content {
			if c.Text != nil && len(*c.Text) > 8 {
				return errResultTooLong
			}
		}
		return nil
	}
	pol := engine.For(engine.NewCatalog(prof))
	e := newEnvPolicy(t, &pol)
	p := newAskPeer(false)
	stop := e.connectPeer(p)
	defer stop()
	s := e.v1Session(inlineSession)
	tid := e.postEvents(s.ID, helloMessage).Receipts[0].TurnID
	e.waitTurn(tid, "the function call", statusIs("call-1", "pending"))
	writes := e.writes()
	st, body := e.v1("POST", "/v1/agents/sessions/"+s.ID+"/events",
		`{"events":[{"type":"agent.session.input.tool_result","call_id":"call-1","turn_id":"`+tid+`","success":true,"output":"far too long an answer"}]}`)
	d := expectV1(t, "over the profile's limit", st, body, 400, api.TypeInvalidRequest, api.CodeEngineUnqualified)
	if !strings.Contains(d.Message, "function_result") || !strings.Contains(d.Message, errResultTooLong.Error()) {
		t.Fatalf("message %q names neither the function result nor the limit", d.Message)
	}
	if w := e.writes(); w != writes {
		t.Fatalf("the refused result wrote %d records", w-writes)
	}
	if ix := ixOf(t, e.turnView(tid), "call-1"); ix.Status != "pending" || ix.Attempts != 0 {
		t.Fatalf("call after the refusal: %+v", ix)
	}
	r := e.postEvents(s.ID, `{"events":[{"type":"agent.session.input.tool_result","call_id":"call-1","turn_id":"`+tid+`","success":true,"output":"42"}]}`)
	if len(r.Receipts) != 1 || r.Receipts[0].Action != "function_result" || r.Receipts[0].DeliveryID == "" {
		t.Fatalf("receipts %+v", r)
	}
	e.waitTurn(tid, "applied", statusIs("call-1", "applied"))
}
