package daemon

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/wire"
)

// KindConfig declares one registered Harness kind. Capabilities must be
// complete: every member explicitly supported or unsupported, even when the
// kind is not available.
type KindConfig struct {
	Kind         string
	Version      string
	Available    bool
	Capabilities wire.AgentKindCapabilities
}

// Limits bounds every table the machine keeps. Zero fields take the
// documented defaults (see DefaultLimits).
type Limits struct {
	AdmissionRecordsMax  int // admission records kept per connection
	ActiveMax            int // active preparations and executions together
	IdleExecutorsMax     int // idle executors retained for reuse
	ExecutorsMax         int // executors held in any state, closing and uncertain included
	SteerInputsPerRunMax int // durable inputs accepted per Run
	OutputFramesMax      int // Turn output frames buffered before `started`

	AdmissionExpiry      time.Duration // from the grant; retries never extend it
	NativeWriteBudget    time.Duration // native durable write of one input
	ReceiptSendBudget    time.Duration // each receipt send (carried on Send)
	SettlementWait       time.Duration // a cancel waiter's wait for settlement
	IdleExpiry           time.Duration // idle executor retention
	CloseRetryBackoff    time.Duration // first retry after a failed close or settlement
	CloseRetryBackoffMax time.Duration // retry backoff ceiling
	// PrepareExpiry bounds a runtime_prepare transfer from its begin to
	// its commit (Core's 195 s exchange): an expired transfer is dropped
	// and refused invalid_request, which frees Core's connection even
	// when Core gave up on the transfer first.
	PrepareExpiry time.Duration
}

// DefaultLimits returns the numbers of the protocol documents.
func DefaultLimits() Limits {
	return Limits{
		AdmissionRecordsMax:  wire.AdmissionRecordsMax,
		ActiveMax:            4,
		IdleExecutorsMax:     16,
		ExecutorsMax:         20,
		SteerInputsPerRunMax: wire.SteerInputsPerRunMax,
		OutputFramesMax:      wire.OutputFramesMax,
		AdmissionExpiry:      5 * time.Minute,
		NativeWriteBudget:    10 * time.Second,
		ReceiptSendBudget:    5 * time.Second,
		SettlementWait:       10 * time.Second,
		IdleExpiry:           10 * time.Minute,
		CloseRetryBackoff:    time.Second,
		CloseRetryBackoffMax: 30 * time.Second,
		PrepareExpiry:        195 * time.Second,
	}
}

// Config is everything the machine needs; it is copied by New.
type Config struct {
	Kinds             []KindConfig
	DaemonVersion     string
	HeartbeatInterval time.Duration // default 15s
	Limits            Limits
	Workspace         WorkspaceConfig
}

// DefaultHeartbeatInterval is the bootstrap default cadence.
const DefaultHeartbeatInterval = 15 * time.Second

// ErrInvalidConfig is wrapped by every configuration error.
var ErrInvalidConfig = errors.New("daemon: invalid config")

// WithDefaults returns c with zero fields set to the documented defaults
// and the kinds sorted by name (what New uses).
func (c Config) WithDefaults() Config {
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = DefaultHeartbeatInterval
	}
	d := DefaultLimits()
	l := &c.Limits
	fillInt(&l.AdmissionRecordsMax, d.AdmissionRecordsMax)
	fillInt(&l.ActiveMax, d.ActiveMax)
	fillInt(&l.IdleExecutorsMax, d.IdleExecutorsMax)
	fillInt(&l.ExecutorsMax, d.ExecutorsMax)
	fillInt(&l.SteerInputsPerRunMax, d.SteerInputsPerRunMax)
	fillInt(&l.OutputFramesMax, d.OutputFramesMax)
	fillDur(&l.AdmissionExpiry, d.AdmissionExpiry)
	fillDur(&l.NativeWriteBudget, d.NativeWriteBudget)
	fillDur(&l.ReceiptSendBudget, d.ReceiptSendBudget)
	fillDur(&l.SettlementWait, d.SettlementWait)
	fillDur(&l.IdleExpiry, d.IdleExpiry)
	fillDur(&l.CloseRetryBackoff, d.CloseRetryBackoff)
	fillDur(&l.CloseRetryBackoffMax, d.CloseRetryBackoffMax)
	fillDur(&l.PrepareExpiry, d.PrepareExpiry)
	c.Workspace.withDefaults()
	c.Kinds = slices.Clone(c.Kinds)
	slices.SortFunc(c.Kinds, func(a, b KindConfig) int { return strings.Compare(a.Kind, b.Kind) })
	return c
}

func fillInt(v *int, d int) {
	if *v == 0 {
		*v = d
	}
}

func fillDur(v *time.Duration, d time.Duration) {
	if *v == 0 {
		*v = d
	}
}

// Validate reports the first problem of a configuration after defaults.
func (c Config) Validate() error { return c.WithDefaults().validate() }

func (c Config) validate() error {
	if c.HeartbeatInterval < 0 {
		return fmt.Errorf("%w: heartbeat interval %v", ErrInvalidConfig, c.HeartbeatInterval)
	}
	for i, k := range c.Kinds {
		if strings.TrimSpace(k.Kind) == "" || strings.TrimSpace(k.Kind) != k.Kind {
			return fmt.Errorf("%w: kind %d has a blank or padded name", ErrInvalidConfig, i)
		}
		if i > 0 && c.Kinds[i-1].Kind == k.Kind {
			return fmt.Errorf("%w: kind %q declared twice", ErrInvalidConfig, k.Kind)
		}
		if err := k.Capabilities.Validate(); err != nil {
			return fmt.Errorf("%w: kind %q: %v", ErrInvalidConfig, k.Kind, err)
		}
	}
	l := c.Limits
	for _, n := range []int{l.AdmissionRecordsMax, l.ActiveMax, l.IdleExecutorsMax,
		l.ExecutorsMax, l.SteerInputsPerRunMax, l.OutputFramesMax} {
		if n < 0 {
			return fmt.Errorf("%w: negative limit", ErrInvalidConfig)
		}
	}
	if l.ExecutorsMax < l.ActiveMax {
		return fmt.Errorf("%w: executors max %d below active max %d", ErrInvalidConfig, l.ExecutorsMax, l.ActiveMax)
	}
	if l.AdmissionRecordsMax < l.ActiveMax {
		return fmt.Errorf("%w: admission records max %d below active max %d", ErrInvalidConfig, l.AdmissionRecordsMax, l.ActiveMax)
	}
	for _, d := range []time.Duration{l.AdmissionExpiry, l.NativeWriteBudget, l.ReceiptSendBudget,
		l.SettlementWait, l.IdleExpiry, l.CloseRetryBackoff, l.CloseRetryBackoffMax, l.PrepareExpiry} {
		if d < 0 {
			return fmt.Errorf("%w: negative duration", ErrInvalidConfig)
		}
	}
	if l.CloseRetryBackoffMax < l.CloseRetryBackoff {
		return fmt.Errorf("%w: retry backoff max below base", ErrInvalidConfig)
	}
	return c.Workspace.validate()
}

// kind returns the registered kind or nil.
func (c *Config) kind(name string) *KindConfig {
	i, ok := slices.BinarySearchFunc(c.Kinds, name, func(k KindConfig, n string) int { return strings.Compare(k.Kind, n) })
	if !ok {
		return nil
	}
	return &c.Kinds[i]
}
