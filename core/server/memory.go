package server

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core/store"
)

// Memory is a Backend held in memory: the store of tests and of a Core run
// without a data directory. Commit only counts. Not safe for concurrent use.
type Memory struct {
	*store.Memory
	devices map[string]Device
	idem    map[string][]byte
	commits uint64
	// FailCommit, when set, is returned by the next Commit (fail-stop tests).
	FailCommit error
}

var _ Backend = (*Memory)(nil)

// NewMemory returns an empty in-memory backend.
func NewMemory() *Memory {
	return &Memory{Memory: store.NewMemory(), devices: map[string]Device{}, idem: map[string][]byte{}}
}

// Commit counts a commit, or returns FailCommit.
func (m *Memory) Commit() error {
	if err := m.FailCommit; err != nil {
		m.FailCommit = nil
		return err
	}
	m.commits++
	return nil
}

// Commits returns the number of successful commits.
func (m *Memory) Commits() uint64 { return m.commits }

func (m *Memory) PutIdempotent(key string, answer []byte) {
	m.idem[key] = slices.Clone(answer)
}

func (m *Memory) Idempotent(key string) ([]byte, bool) {
	a, ok := m.idem[key]
	return a, ok
}

func (m *Memory) AddDevice(id string, hash [32]byte, at time.Time) error {
	if _, ok := m.devices[id]; ok {
		return fmt.Errorf("%w: %s", ErrDeviceExists, id)
	}
	m.devices[id] = Device{ID: id, CredentialHash: hash, CreatedAt: at}
	return nil
}

func (m *Memory) Device(id string) (Device, bool, error) {
	d, ok := m.devices[id]
	return d, ok, nil
}

func (m *Memory) Devices() ([]Device, error) {
	out := make([]Device, 0, len(m.devices))
	for _, d := range m.devices {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Device) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

func (m *Memory) RevokeDevice(id string, at time.Time) error {
	d, ok := m.devices[id]
	if !ok {
		return fmt.Errorf("%w: %s", ErrUnknownDevice, id)
	}
	if !d.Revoked {
		d.Revoked, d.RevokedAt = true, at
		m.devices[id] = d
	}
	return nil
}
