package synthetic_test

import (
	"testing"
	"testing/synctest"

	"github.com/turnstile-sim/turnstile/adapters/contracttest"
	"github.com/turnstile-sim/turnstile/adapters/synthetic"
)

// TestDeclarationIsComplete checks that every capability is decided and
// that the declaration, the interfaces implemented and contracts.go agree.
func TestDeclarationIsComplete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := synthetic.New()
		contracttest.Declaration(t, synthetic.Declaration(h), contracttest.DeclarationOptions{
			Config: config(), Hold: fixture(h).Hold})
	})
}
