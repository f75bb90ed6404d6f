package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/turnstile-sim/turnstile/core/api"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/core/store/pgstore"
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

// pgBackend adapts the PostgreSQL store to server.Backend.
type pgBackend struct{ *pgstore.Store }

var _ server.Backend = pgBackend{}

func fromPG(d pgstore.Device) server.Device {
	return server.Device{ID: d.ID, CredentialHash: d.CredentialHash, Revoked: d.Revoked,
		CreatedAt: d.CreatedAt, RevokedAt: d.RevokedAt}
}

func (b pgBackend) AddDevice(id string, hash [32]byte, at time.Time) error {
	err := b.Store.AddDevice(id, hash, at)
	if errors.Is(err, pgstore.ErrDeviceExists) {
		return fmt.Errorf("%w: %v", server.ErrDeviceExists, err)
	}
	return err
}

func (b pgBackend) Device(id string) (server.Device, bool, error) {
	d, ok, err := b.Store.Device(id)
	return fromPG(d), ok, err
}

func (b pgBackend) Devices() ([]server.Device, error) {
	ds, err := b.Store.Devices()
	out := make([]server.Device, len(ds))
	for i, d := range ds {
		out[i] = fromPG(d)
	}
	return out, err
}

func (b pgBackend) RevokeDevice(id string, at time.Time) error {
	err := b.Store.RevokeDevice(id, at)
	if errors.Is(err, pgstore.ErrUnknownDevice) {
		return fmt.Errorf("%w: %v", server.ErrUnknownDevice, err)
	}
	return err
}

// coreStore is the store turnstile core and its device and key commands
// run on: the SQLite store in -data, or the PostgreSQL store of -store.
type coreStore interface {
	server.Backend
	api.ResourceStore
	Close() error
}

// ErrStoreURL is a -store that is not a PostgreSQL URL.
var ErrStoreURL = errors.New("-store must be a PostgreSQL URL, postgres://… or postgresql://… (TURNSTILE_STORE); leave it empty for the SQLite store in -data")

// checkStoreFlags validates -store and -data.
func checkStoreFlags(f *coreFlags) error {
	if f.store != "" && !pgstore.IsDSN(f.store) {
		return ErrStoreURL
	}
	if f.store == "" && f.data == "" {
		return ErrDataDirMissing
	}
	return nil
}

// storeLabel names the store in logs and messages, never with a password.
func storeLabel(f *coreFlags, st coreStore) string {
	if b, ok := st.(pgBackend); ok {
		return b.Where()
	}
	return filepath.Join(f.data, sqlitestore.FileName)
}

// openCoreStore opens the store the flags name. create says whether an
// absent store may be created (Core and the add commands) or must exist
// (ErrNoStore: list and revoke create nothing). created reports that it
// was.
func openCoreStore(f *coreFlags, create bool) (st coreStore, created bool, err error) {
	if f.store != "" {
		if !create {
			ok, err := pgstore.Exists(f.store)
			if err != nil {
				return nil, false, err
			}
			if !ok {
				return nil, false, fmt.Errorf("-store: %w: the schema holds no tables", ErrNoStore)
			}
		}
		s, err := pgstore.Open(f.store)
		if err != nil {
			return nil, false, err
		}
		return pgBackend{s}, s.Created(), nil
	}
	exists, err := storeExists(f.data)
	if !exists && (!create || !errors.Is(err, ErrNoStore)) {
		if errors.Is(err, ErrNoStore) {
			return nil, false, err
		}
		return nil, false, &storeCheckError{err}
	}
	s, err := sqlitestore.Open(f.data)
	if err != nil {
		return nil, false, err
	}
	return sqliteBackend{s}, !exists, nil
}

// storeCheckError is a data directory that could not be examined (not
// ErrNoStore: it may hold a store).
type storeCheckError struct{ err error }

func (e *storeCheckError) Error() string { return e.err.Error() }
func (e *storeCheckError) Unwrap() error { return e.err }
