package localworkspace

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/turnstile-sim/turnstile/adapters/agent"
)

// ErrUnbound reports an Environment without a local workspace.
var ErrUnbound = errors.New("localworkspace: environment has no local workspace")

// Binding binds each Environment to the directory of its ID under Base
// (made by the Environment's preparation, not here).
type Binding struct{ Base string }

var _ agent.WorkspaceBinding = Binding{}

// Root returns Base/<environment> for an ID that is one plain path
// element; anything else is unbound.
func (b Binding) Root(environment string) (string, error) {
	if b.Base == "" || environment == "" || environment == "." || !fs.ValidPath(environment) ||
		filepath.Base(environment) != environment {
		return "", ErrUnbound
	}
	return filepath.Join(b.Base, environment), nil
}

// Open returns the owner of the Environment's workspace.
func (b Binding) Open(environment string) (agent.WorkspaceOwner, error) {
	root, err := b.Root(environment)
	if err != nil {
		return nil, err
	}
	return Open(root)
}
