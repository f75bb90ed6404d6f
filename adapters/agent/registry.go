package agent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/turnstile-sim/turnstile/wire"
)

// Registration errors. A rejected registration leaves the Registry exactly
// as it was.
var (
	ErrKindNotRegistered = errors.New("agent: kind not registered")
	ErrKindMismatch      = errors.New("agent: discovery changed the declared kind")
	ErrNilFactory        = errors.New("agent: nil factory")
	// ErrCapabilityMismatch reports a factory registration the declared
	// capabilities do not allow.
	ErrCapabilityMismatch = errors.New("agent: registration contradicts declared capabilities")
)

// Registry holds the installed kinds. The zero value is ready to use and
// safe for concurrent use.
type Registry struct {
	mu    sync.Mutex
	kinds map[string]entry
}

type entry struct {
	descriptor    wire.SupportedAgentKind
	configuration ModelConfiguration
	sessions      Factory
	executors     ExecutorFactory
	preparations  PreparationFactory
	workspaceRead bool
}

func newEntry(kind wire.SupportedAgentKind, cfg ModelConfiguration, f Factory) (entry, error) {
	if err := validateKind(kind.Kind); err != nil {
		return entry{}, err
	}
	if err := kind.Capabilities.Validate(); err != nil {
		return entry{}, fmt.Errorf("%w: %w", ErrInvalidDeclaration, err)
	}
	if err := cfg.Validate(); err != nil {
		return entry{}, err
	}
	if f == nil {
		return entry{}, fmt.Errorf("%w: session factory", ErrNilFactory)
	}
	cfg.Protocols = slices.Clone(cfg.Protocols)
	return entry{descriptor: kind, configuration: cfg, sessions: f}, nil
}

func (e entry) withExecutor(f ExecutorFactory) (entry, error) {
	if f == nil {
		return entry{}, fmt.Errorf("%w: executor factory", ErrNilFactory)
	}
	if !e.descriptor.Capabilities.Preparation.IsSupported() {
		return entry{}, fmt.Errorf("%w: executor factory for a kind without preparation", ErrCapabilityMismatch)
	}
	e.executors = f
	return e, nil
}

func (e entry) withPreparation(workspaceRead bool, f PreparationFactory) (entry, error) {
	if f == nil {
		return entry{}, fmt.Errorf("%w: preparation factory", ErrNilFactory)
	}
	if workspaceRead && !e.descriptor.Capabilities.WorkspaceReadPreparation.IsSupported() {
		return entry{}, fmt.Errorf("%w: workspace read preparation not declared", ErrCapabilityMismatch)
	}
	e.preparations, e.workspaceRead = f, workspaceRead
	return e, nil
}

// RegisterKind installs a kind's descriptor, model configuration and
// direct-call factory after validating all of them. It resets every other
// registration of the kind, so it must be called first.
func (r *Registry) RegisterKind(kind wire.SupportedAgentKind, cfg ModelConfiguration, f Factory) error {
	e, err := newEntry(kind, cfg, f)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kinds == nil {
		r.kinds = make(map[string]entry)
	}
	r.kinds[kind.Kind] = e
	return nil
}

// RegisterExecutor installs the Executor and Turn lifecycle of a
// registered kind. The Preparation capability reported by Kinds derives
// from it.
func (r *Registry) RegisterExecutor(kind string, f ExecutorFactory) error {
	return r.update(kind, func(e entry) (entry, error) { return e.withExecutor(f) })
}

// RegisterPreparation installs the optional read-only workspace
// preparation of a registered kind. workspaceRead states that it qualifies
// workspace reads, which the declaration must support.
func (r *Registry) RegisterPreparation(kind string, workspaceRead bool, f PreparationFactory) error {
	return r.update(kind, func(e entry) (entry, error) { return e.withPreparation(workspaceRead, f) })
}

func (r *Registry) update(kind string, step func(entry) (entry, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.kinds[kind]
	if !ok {
		return fmt.Errorf("%w: register the kind first", ErrKindNotRegistered)
	}
	next, err := step(e)
	if err != nil {
		return err
	}
	r.kinds[kind] = next
	return nil
}

// Register installs what discovery returned for d, in order: kind,
// executor (when installed), preparation (when installed). It validates the
// declaration, that discovery kept the declared kind, and every step before
// changing the Registry. A nil Runtime means the adapter is not configured
// and registers nothing.
func (r *Registry) Register(d Declaration, rt *Runtime) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if rt == nil {
		return nil
	}
	if rt.Descriptor.Kind != d.Kind {
		return fmt.Errorf("%w: descriptor kind differs", ErrKindMismatch)
	}
	e, err := newEntry(rt.Descriptor, d.Configuration, rt.Sessions)
	if err != nil {
		return err
	}
	if rt.Executors != nil {
		if e, err = e.withExecutor(rt.Executors); err != nil {
			return err
		}
	}
	if rt.Preparations != nil {
		if e, err = e.withPreparation(rt.WorkspaceRead, rt.Preparations); err != nil {
			return err
		}
	} else if rt.WorkspaceRead {
		return fmt.Errorf("%w: workspace read without a preparation factory", ErrNilFactory)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kinds == nil {
		r.kinds = make(map[string]entry)
	}
	r.kinds[d.Kind] = e
	return nil
}

// Kinds returns the installed descriptors sorted by kind, as a heartbeat
// declares them. Preparation is reported supported only when an Executor
// factory is installed, workspace read preparation only when a qualifying
// preparation factory is.
func (r *Registry) Kinds() []wire.SupportedAgentKind {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]wire.SupportedAgentKind, 0, len(r.kinds))
	for _, e := range r.kinds {
		d := e.descriptor
		c := &d.Capabilities
		c.Preparation = wire.CapabilityFromBool(c.Preparation.IsSupported() && e.executors != nil)
		c.WorkspaceReadPreparation = wire.CapabilityFromBool(
			c.WorkspaceReadPreparation.IsSupported() && e.preparations != nil && e.workspaceRead)
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b wire.SupportedAgentKind) int { return strings.Compare(a.Kind, b.Kind) })
	return out
}

// Executors returns the Executor factory of kind.
func (r *Registry) Executors(kind string) (ExecutorFactory, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.kinds[kind]
	return e.executors, ok && e.executors != nil
}

// Sessions returns the direct-call factory of kind.
func (r *Registry) Sessions(kind string) (Factory, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.kinds[kind]
	return e.sessions, ok
}

// Preparations returns the preparation factory of kind and whether it
// qualifies workspace reads.
func (r *Registry) Preparations(kind string) (PreparationFactory, bool, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.kinds[kind]
	return e.preparations, e.workspaceRead, ok && e.preparations != nil
}

// Configuration returns the model configuration declared for kind.
func (r *Registry) Configuration(kind string) (ModelConfiguration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.kinds[kind]
	e.configuration.Protocols = slices.Clone(e.configuration.Protocols)
	return e.configuration, ok
}
