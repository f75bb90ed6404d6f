package pgstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
)

// The suspension (fencing) and Environment preparation tables. Each record
// is one row keyed by its Seq, with its ID unique and the whole record as
// JSON, so a field added to a record needs no migration. Writes join the
// pending batch like every other core.Store write.

var (
	_ core.SuspensionStore  = (*Store)(nil)
	_ core.PreparationStore = (*Store)(nil)
)

// seqKeys holds, for one table, the Seq of each ID and the ID of each Seq:
// a record keeps the Seq it was first written with, and no two records
// share one (the table's primary key).
type seqKeys struct {
	seqOf map[string]uint64
	idOf  map[uint64]string
}

func newSeqKeys() seqKeys { return seqKeys{seqOf: map[string]uint64{}, idOf: map[uint64]string{}} }

// claim panics (fail-stop, before anything is recorded) when id and seq
// disagree with an earlier record of the table, and records the pair
// otherwise.
func (k seqKeys) claim(table, id string, seq uint64) {
	checkRange(table+" seq", seq)
	checkText(table+" ID", id)
	if s, ok := k.seqOf[id]; ok && s != seq {
		panic(fmt.Sprintf("pgstore: %s %q rewritten with seq %d; it was written with seq %d", table, id, seq, s))
	}
	if other, ok := k.idOf[seq]; ok && other != id {
		panic(fmt.Sprintf("pgstore: %s %q written with seq %d, which %q holds", table, id, seq, other))
	}
	k.seqOf[id], k.idOf[seq] = seq, id
}

// PutSuspension inserts or replaces a suspension record (by ID; its Seq
// never changes).
func (s *Store) PutSuspension(r core.SuspensionRecord) {
	s.write(func(m *store.Memory, p *pending) {
		s.suspensionKeys.claim("suspension", r.ID, r.Seq)
		m.PutSuspension(r)
		p.writes++
		p.suspensions = upsert(p.suspensions, p.suspensionAt, r.ID, r)
	})
}

// Suspensions lists the suspension records in Seq order.
func (s *Store) Suspensions() []core.SuspensionRecord {
	return read(s, (*store.Memory).Suspensions)
}

// PutEnvironmentPreparation inserts or replaces a preparation record (by
// ID; its Seq never changes).
func (s *Store) PutEnvironmentPreparation(r core.EnvironmentPreparationRecord) {
	s.write(func(m *store.Memory, p *pending) {
		s.preparationKeys.claim("preparation", r.ID, r.Seq)
		r.Steps = slices.Clone(r.Steps) // the batch's own copy; the mirror keeps another
		m.PutEnvironmentPreparation(r)
		p.writes++
		p.preparations = upsert(p.preparations, p.preparationAt, r.ID, r)
	})
}

// EnvironmentPreparations lists the preparation records in Seq order.
func (s *Store) EnvironmentPreparations() []core.EnvironmentPreparationRecord {
	return read(s, (*store.Memory).EnvironmentPreparations)
}

const (
	upsertSuspension = `INSERT INTO suspensions (seq, id, body) VALUES ($1, $2, $3)
		ON CONFLICT (seq) DO UPDATE SET body = excluded.body`
	upsertPreparation = `INSERT INTO preparations (seq, id, body) VALUES ($1, $2, $3)
		ON CONFLICT (seq) DO UPDATE SET body = excluded.body`
)

// addEnvironmentRecords adds the batch's suspension and preparation
// records to the Commit transaction.
func addEnvironmentRecords(b *batch, p *pending) error {
	for _, r := range p.suspensions {
		if err := b.addJSON("suspension "+r.ID, upsertSuspension, r, i64(r.Seq), r.ID); err != nil {
			return err
		}
	}
	for _, r := range p.preparations {
		if err := b.addJSON("preparation "+r.ID, upsertPreparation, r, i64(r.Seq), r.ID); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) loadSuspensions(ctx context.Context, tx pgx.Tx, mem *store.Memory) error {
	s.suspensionKeys = newSeqKeys()
	return s.rows(ctx, tx, `SELECT seq, id, body FROM suspensions ORDER BY seq`, func(rs pgx.Rows) error {
		var seq int64
		var id, body string
		var r core.SuspensionRecord
		if err := scanJSON(rs, &body, &r, &seq, &id); err != nil || r.ID != id || r.Seq != uint64(seq) {
			return s.bad("suspension "+id, keyMismatch(err, id, seq, r.ID, r.Seq))
		}
		s.suspensionKeys.claim("suspension", r.ID, r.Seq)
		mem.PutSuspension(r)
		return nil
	})
}

func (s *Store) loadPreparations(ctx context.Context, tx pgx.Tx, mem *store.Memory) error {
	s.preparationKeys = newSeqKeys()
	return s.rows(ctx, tx, `SELECT seq, id, body FROM preparations ORDER BY seq`, func(rs pgx.Rows) error {
		var seq int64
		var id, body string
		var r core.EnvironmentPreparationRecord
		if err := scanJSON(rs, &body, &r, &seq, &id); err != nil || r.ID != id || r.Seq != uint64(seq) {
			return s.bad("preparation "+id, keyMismatch(err, id, seq, r.ID, r.Seq))
		}
		s.preparationKeys.claim("preparation", r.ID, r.Seq)
		mem.PutEnvironmentPreparation(r)
		return nil
	})
}

func keyMismatch(err error, id string, seq int64, bodyID string, bodySeq uint64) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("row (seq %d, id %q) holds a body of seq %d, id %q", seq, id, bodySeq, bodyID)
}
