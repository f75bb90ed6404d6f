package pgstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/turnstile-sim/turnstile/wire"
)

// Errors of the device records. Nothing is written when one is returned.
var (
	ErrDeviceExists    = errors.New("pgstore: device already exists")
	ErrUnknownDevice   = errors.New("pgstore: unknown device")
	ErrDeviceRevoked   = errors.New("pgstore: device already revoked")
	ErrInvalidDeviceID = errors.New("pgstore: invalid device ID")
	ErrInvalidHash     = errors.New("pgstore: invalid credential hash")
	ErrInvalidTime     = errors.New("pgstore: invalid time")
)

// Device is an enrolled Runtime device: the SHA-256 of its credential and
// whether it was revoked. Times keep their instant and UTC offset.
type Device struct {
	ID             string
	CredentialHash [32]byte
	Revoked        bool
	CreatedAt      time.Time
	RevokedAt      time.Time // zero unless Revoked
}

// checkDeviceID: a device ID is a wire correlation ID: non-empty, valid
// UTF-8, at most wire.IDBytesMax bytes, no control characters.
func checkDeviceID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty", ErrInvalidDeviceID)
	case len(id) > wire.IDBytesMax:
		return fmt.Errorf("%w: %d bytes, at most %d", ErrInvalidDeviceID, len(id), wire.IDBytesMax)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: not UTF-8", ErrInvalidDeviceID)
	case bytes.ContainsFunc([]byte(id), func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("%w: control character", ErrInvalidDeviceID)
	}
	return nil
}

// operator runs f in its own transaction, at once (device and resource
// records are not part of the machine's group commit).
func (s *Store) operator(f func(ctx context.Context, tx pgx.Tx) error) (err error) {
	if s.isClosed() {
		return ErrClosed
	}
	ctx := context.Background()
	tx, err := s.db.Begin(ctx)
	if err != nil {
		return classify(s.where, err)
	}
	if s.epoch > 0 {
		if err := s.checkFence(tx.QueryRow(ctx, fenceQuery)); err != nil {
			return errors.Join(err, ignoreDone(tx.Rollback(ctx)))
		}
	}
	if err := f(ctx, tx); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback(ctx)))
	}
	if err := tx.Commit(ctx); err != nil {
		return classify(s.where, err)
	}
	return nil
}

// AddDevice enrolls device id with the SHA-256 of its credential, written
// at once in its own transaction. ErrDeviceExists if id is enrolled
// (revoked or not); ErrInvalidDeviceID, ErrInvalidHash (all zero) or
// ErrInvalidTime (zero) for bad arguments.
func (s *Store) AddDevice(id string, hash [32]byte, at time.Time) error {
	if err := checkDeviceID(id); err != nil {
		return err
	}
	if hash == ([32]byte{}) {
		return fmt.Errorf("%w: all zero", ErrInvalidHash)
	}
	if at.IsZero() {
		return fmt.Errorf("%w: zero creation time", ErrInvalidTime)
	}
	return s.operator(func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO devices (id, credential_hash, revoked, created_at, revoked_at)
			VALUES ($1, $2, false, $3, '') ON CONFLICT (id) DO NOTHING`, id, hash[:], formatTime(at))
		if err != nil {
			return classify(s.where, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: %q", ErrDeviceExists, id)
		}
		return nil
	})
}

// RevokeDevice marks device id revoked at the given time, at once.
// ErrUnknownDevice if it is not enrolled, ErrDeviceRevoked if it already
// is revoked (its first revocation time stays).
func (s *Store) RevokeDevice(id string, at time.Time) error {
	if at.IsZero() {
		return fmt.Errorf("%w: zero revocation time", ErrInvalidTime)
	}
	return s.operator(func(ctx context.Context, tx pgx.Tx) error {
		d, ok, err := s.queryDevice(ctx, tx, id, " FOR UPDATE")
		switch {
		case err != nil:
			return err
		case !ok:
			return fmt.Errorf("%w: %q", ErrUnknownDevice, id)
		case d.Revoked:
			return fmt.Errorf("%w: %q since %s", ErrDeviceRevoked, id, d.RevokedAt.Format(time.RFC3339))
		}
		if _, err := tx.Exec(ctx, `UPDATE devices SET revoked = true, revoked_at = $1 WHERE id = $2`, formatTime(at), id); err != nil {
			return classify(s.where, err)
		}
		return nil
	})
}

// Device reads device id from the database (not the mirror), so a device
// enrolled or revoked by another process is seen at once.
func (s *Store) Device(id string) (Device, bool, error) {
	if s.isClosed() {
		return Device{}, false, ErrClosed
	}
	if !validText(id) {
		return Device{}, false, nil // no such ID can be enrolled
	}
	return s.queryDevice(context.Background(), s.db, id, "")
}

// Devices lists every enrolled device by ID (bytewise), read from the
// database.
func (s *Store) Devices() ([]Device, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	var out []Device
	err := s.rows(context.Background(), s.db, `SELECT id, credential_hash, revoked, created_at, revoked_at FROM devices ORDER BY id COLLATE "C"`,
		func(rs pgx.Rows) error {
			d, err := scanDevice(rs.Scan)
			if err != nil {
				return s.bad("device", err)
			}
			out = append(out, d)
			return nil
		})
	return out, err
}

func (s *Store) queryDevice(ctx context.Context, q querier, id, lock string) (Device, bool, error) {
	row := q.QueryRow(ctx, `SELECT id, credential_hash, revoked, created_at, revoked_at FROM devices WHERE id = $1`+lock, id)
	d, err := scanDevice(row.Scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return Device{}, false, nil
	}
	if err != nil {
		return Device{}, false, fmt.Errorf("%w: %s: device %q: %v", ErrBadRecord, s.where, id, err)
	}
	return d, true, nil
}

func scanDevice(scan func(...any) error) (Device, error) {
	var d Device
	var hash []byte
	var created, revoked string
	if err := scan(&d.ID, &hash, &d.Revoked, &created, &revoked); err != nil {
		return Device{}, err
	}
	if len(hash) != len(d.CredentialHash) {
		return Device{}, fmt.Errorf("credential hash of %d bytes", len(hash))
	}
	copy(d.CredentialHash[:], hash)
	var err error
	if d.CreatedAt, err = parseTime(created); err != nil {
		return Device{}, err
	}
	if d.RevokedAt, err = parseTime(revoked); err != nil {
		return Device{}, err
	}
	return d, nil
}

func formatTime(t time.Time) string { return t.Format(time.RFC3339Nano) }

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

// PutIdempotent records the answer to the API request with Idempotency-Key
// key. It joins the pending batch, so the answer reaches the database in
// the same Commit as the machine writes the request caused. The first
// answer for a key stays: a later PutIdempotent of the same key is
// ignored. An empty key is a programming error and panics.
func (s *Store) PutIdempotent(key string, answer []byte) {
	if key == "" {
		panic("pgstore: PutIdempotent with an empty key")
	}
	answer = append([]byte{}, answer...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		panic("pgstore: write after Close")
	}
	if _, ok := s.idem[key]; ok {
		return
	}
	s.idem[key] = answer
	s.pend.idem = append(s.pend.idem, pendingAnswer{key, answer})
}

// Idempotent returns the recorded answer for key, from the mirror (it
// includes answers not yet committed, as every read does).
func (s *Store) Idempotent(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.idem[key]
	return slices.Clone(a), ok
}

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
