package server

import (
	"errors"
	"time"

	"github.com/turnstile-sim/turnstile/core"
)

// Durable is a core.Store whose writes become durable together at Commit:
// the loop commits once per batch of Steps, before any effect of the batch
// is applied. A Commit error is fatal (fail-stop).
type Durable interface {
	core.Store
	Commit() error
}

// Idempotency remembers the first answer of an API request by its
// Idempotency-Key. A Put is buffered into the next Commit, the one that makes
// the request's own writes durable.
type Idempotency interface {
	PutIdempotent(key string, answer []byte)
	Idempotent(key string) ([]byte, bool)
}

// Device is a Runtime device record. Only the SHA-256 of its credential is
// stored.
type Device struct {
	ID             string
	CredentialHash [32]byte
	Revoked        bool
	CreatedAt      time.Time
	RevokedAt      time.Time
}

// Credentials holds device records.
type Credentials interface {
	AddDevice(id string, hash [32]byte, at time.Time) error
	Device(id string) (Device, bool, error)
	Devices() ([]Device, error)
	RevokeDevice(id string, at time.Time) error
}

// EventLog reads the tail of a Turn's run events: a reader that holds
// the first seq events (sequences 1..seq) reads only the later ones,
// without copying the Turn's whole log again.
type EventLog interface {
	EventsAfter(turn string, seq uint64) []core.RunEvent
}

// Backend is everything durable the server keeps. It is used from the loop
// goroutine only.
type Backend interface {
	Durable
	EventLog
	Idempotency
	Credentials
}

// Named backend errors.
var (
	ErrDeviceExists  = errors.New("server: device already exists")
	ErrUnknownDevice = errors.New("server: unknown device")
)
