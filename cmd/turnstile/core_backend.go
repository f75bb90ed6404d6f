package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/core/store/sqlitestore"
)

// sqliteBackend adapts the SQLite store to server.Backend.
type sqliteBackend struct{ *sqlitestore.Store }

var _ server.Backend = sqliteBackend{}

func fromSQLite(d sqlitestore.Device) server.Device {
	return server.Device{ID: d.ID, CredentialHash: d.CredentialHash, Revoked: d.Revoked,
		CreatedAt: d.CreatedAt, RevokedAt: d.RevokedAt}
}

func (b sqliteBackend) AddDevice(id string, hash [32]byte, at time.Time) error {
	err := b.Store.AddDevice(id, hash, at)
	if errors.Is(err, sqlitestore.ErrDeviceExists) {
		return fmt.Errorf("%w: %v", server.ErrDeviceExists, err)
	}
	return err
}

func (b sqliteBackend) Device(id string) (server.Device, bool, error) {
	d, ok, err := b.Store.Device(id)
	return fromSQLite(d), ok, err
}

func (b sqliteBackend) Devices() ([]server.Device, error) {
	ds, err := b.Store.Devices()
	out := make([]server.Device, len(ds))
	for i, d := range ds {
		out[i] = fromSQLite(d)
	}
	return out, err
}

func (b sqliteBackend) RevokeDevice(id string, at time.Time) error {
	err := b.Store.RevokeDevice(id, at)
	if errors.Is(err, sqlitestore.ErrUnknownDevice) {
		return fmt.Errorf("%w: %v", server.ErrUnknownDevice, err)
	}
	return err
}
