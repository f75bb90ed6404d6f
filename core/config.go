package core

import (
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/core/engine"
)

// EngineProfile describes the controls a Harness kind's engine profile
// declares. When a control is declared, Core requires the matching
// capability (web_search_control, text_verbosity) of the selected device.
type EngineProfile struct {
	WebSearchControl bool
	TextVerbosity    bool
}

// Config holds the machine's timers and limits. Zero fields take the
// defaults of DefaultConfig; Validate reports inconsistent values.
type Config struct {
	// WrittenTimeout is how long Core waits, from the start of an active
	// input's delivery, for the `written` receipt stage (30 s).
	WrittenTimeout time.Duration
	// CancelConfirmTimeout is how long Core waits for the cancel receipt
	// before recording cancel_unconfirmed (15 s).
	CancelConfirmTimeout time.Duration
	// ConnIdleTimeout closes a connection without any inbound frame (60 s).
	ConnIdleTimeout time.Duration
	// PrepareRetryDelay is the wait before a Turn whose preparation was
	// refused with preparation_capacity is prepared again.
	PrepareRetryDelay time.Duration
	// PrepareRetryMax caps the wait before a connection that refused
	// preparations with preparation_capacity gets the next one; the wait
	// doubles from PrepareRetryDelay with every consecutive refusal (30 s).
	PrepareRetryMax time.Duration
	// SteerRetryDelay is the wait before an active input refused with
	// not_ready or busy (before `written`) is offered again.
	SteerRetryDelay time.Duration
	// CancelRetryDelay is the wait before a prompt_cancel refused with
	// not_ready (the Run is still starting) is sent again with a fresh
	// delivery ID (1 s).
	CancelRetryDelay time.Duration
	// DecisionAckTimeout is how long Core waits for the receipt of a
	// permission or user-choice decision or a function result (15 s);
	// without one the outcome is unknown.
	DecisionAckTimeout time.Duration
	// ReconnectWindow is how long a device of the pool that is not
	// connected (since its connection closed, or since the machine
	// started for an enrolled device) counts as reconnecting: while it
	// does, it may still serve a queued Turn that the connected devices
	// lack a capability for, and the Turn waits (2 min, several of the
	// daemon's 30 s backoff caps).
	ReconnectWindow time.Duration

	SessionsMax            int // sessions Core holds
	TurnsPerSessionMax     int // unfinished Turns queued per session
	SteerInputsPerRunMax   int // active inputs per Turn (256)
	SubscribersPerTurnMax  int // SubscribeDurable subscribers per Turn
	DevicesMax             int // distinct devices remembered
	PreparationsPerConnMax int // open preparation streams per connection (64)
	RunEventsPerTurnMax    int // persisted run events per Turn

	// Devices is the pool of enrolled device IDs known when the machine
	// starts (at most DevicesMax). A device of the pool that is not
	// connected may still serve a queued Turn within ReconnectWindow, so
	// no Turn fails capability_unsupported at selection meanwhile
	// (selectConn). Devices seen later join the pool when they connect.
	Devices []string

	// Policy is the immutable engine qualification (see core/engine) that
	// API admission, device selection and the final check all read. Nil
	// selects the built-in catalog (every Harness kind this repository
	// ships); a Policy over an explicit empty catalog authorises nothing.
	Policy *engine.Policy
}

// DefaultConfig returns the timers and limits of the documents.
func DefaultConfig() Config {
	return Config{
		WrittenTimeout:         30 * time.Second,
		CancelConfirmTimeout:   15 * time.Second,
		ConnIdleTimeout:        60 * time.Second,
		PrepareRetryDelay:      time.Second,
		PrepareRetryMax:        30 * time.Second,
		SteerRetryDelay:        time.Second,
		CancelRetryDelay:       time.Second,
		DecisionAckTimeout:     15 * time.Second,
		ReconnectWindow:        2 * time.Minute,
		SessionsMax:            4096,
		TurnsPerSessionMax:     64,
		SteerInputsPerRunMax:   256,
		SubscribersPerTurnMax:  16,
		DevicesMax:             1024,
		PreparationsPerConnMax: 64,
		RunEventsPerTurnMax:    1 << 16,
	}
}

// withDefaults fills zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	durations := []struct {
		dst *time.Duration
		def time.Duration
	}{
		{&c.WrittenTimeout, d.WrittenTimeout},
		{&c.CancelConfirmTimeout, d.CancelConfirmTimeout},
		{&c.ConnIdleTimeout, d.ConnIdleTimeout},
		{&c.PrepareRetryDelay, d.PrepareRetryDelay},
		{&c.PrepareRetryMax, d.PrepareRetryMax},
		{&c.SteerRetryDelay, d.SteerRetryDelay},
		{&c.CancelRetryDelay, d.CancelRetryDelay},
		{&c.DecisionAckTimeout, d.DecisionAckTimeout},
		{&c.ReconnectWindow, d.ReconnectWindow},
	}
	for _, f := range durations {
		if *f.dst == 0 {
			*f.dst = f.def
		}
	}
	ints := []struct {
		dst *int
		def int
	}{
		{&c.SessionsMax, d.SessionsMax},
		{&c.TurnsPerSessionMax, d.TurnsPerSessionMax},
		{&c.SteerInputsPerRunMax, d.SteerInputsPerRunMax},
		{&c.SubscribersPerTurnMax, d.SubscribersPerTurnMax},
		{&c.DevicesMax, d.DevicesMax},
		{&c.PreparationsPerConnMax, d.PreparationsPerConnMax},
		{&c.RunEventsPerTurnMax, d.RunEventsPerTurnMax},
	}
	for _, f := range ints {
		if *f.dst == 0 {
			*f.dst = f.def
		}
	}
	return c
}

// Validate reports the first inconsistent field of c after defaults are
// applied.
func (c Config) Validate() error { return c.withDefaults().validate() }

func (c Config) validate() error {
	if c.WrittenTimeout < 0 || c.CancelConfirmTimeout < 0 || c.ConnIdleTimeout < 0 ||
		c.PrepareRetryDelay < 0 || c.PrepareRetryMax < 0 || c.SteerRetryDelay < 0 || c.CancelRetryDelay < 0 ||
		c.DecisionAckTimeout < 0 || c.ReconnectWindow < 0 {
		return fmt.Errorf("core: config: negative duration")
	}
	if c.SessionsMax < 0 || c.TurnsPerSessionMax < 0 || c.SteerInputsPerRunMax < 0 ||
		c.SubscribersPerTurnMax < 0 || c.DevicesMax < 0 || c.PreparationsPerConnMax < 0 ||
		c.RunEventsPerTurnMax < 0 {
		return fmt.Errorf("core: config: negative limit")
	}
	if len(c.Devices) > c.DevicesMax {
		return fmt.Errorf("core: config: %d devices in the pool, more than DevicesMax %d", len(c.Devices), c.DevicesMax)
	}
	for _, id := range c.Devices {
		if id == "" {
			return fmt.Errorf("core: config: empty device ID in the pool")
		}
	}
	if c.SteerInputsPerRunMax > 256 {
		return fmt.Errorf("core: config: SteerInputsPerRunMax %d above the Runtime's 256", c.SteerInputsPerRunMax)
	}
	if c.PreparationsPerConnMax > 64 {
		return fmt.Errorf("core: config: PreparationsPerConnMax %d above 64", c.PreparationsPerConnMax)
	}
	return nil
}
