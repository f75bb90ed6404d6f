package api_test

import (
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/store/storetest"
)

func TestMemoryResourceContract(t *testing.T) {
	storetest.RunResources(t, false, func(*testing.T) (storetest.Resources, func() storetest.Resources) {
		return api.NewMemoryResources(), nil
	})
}
