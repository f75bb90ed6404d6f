package scenarios_test

import (
	"reflect"
	"testing"

	"github.com/turnstile-sim/turnstile/core/engine"
	"github.com/turnstile-sim/turnstile/core/engine/enginetest"
	"github.com/turnstile-sim/turnstile/scenarios"
	"github.com/turnstile-sim/turnstile/wire"
)

// TestContractProfileIsTheOpenFixture: the contract kind's profile file
// qualifies exactly what the open fixture profile does, and the
// contract-no-images kind the same but images, so a Core started with the
// file plays the scenarios as the runners (ContractPolicy) do.
func TestContractProfileIsTheOpenFixture(t *testing.T) {
	ps, err := engine.ParseProfiles(scenarios.ContractProfile())
	if err != nil {
		t.Fatal(err)
	}
	want := enginetest.Open(scenarios.ContractKind, false, false)
	noImages := enginetest.Open(scenarios.ContractNoImagesKind, false, false)
	noImages.Capabilities.MessageImages = wire.CapabilityUnsupported
	noImages.Capabilities.FunctionResultImages = wire.CapabilityUnsupported
	if len(ps) != 2 {
		t.Fatalf("file profiles %+v, want two", ps)
	}
	want.Label, noImages.Label = ps[0].Label, ps[1].Label
	if !reflect.DeepEqual(ps[0], want) || !reflect.DeepEqual(ps[1], noImages) {
		t.Fatalf("file profiles %+v, want %+v and %+v", ps, want, noImages)
	}
}
