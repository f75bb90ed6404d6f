package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/turnstile-sim/turnstile/core"
)

// pending is the batch of writes since the last Commit. A record written
// twice in one batch is written once, in its last form; events and
// idempotency answers are kept in order.
type pending struct {
	writes    int
	counters  *core.Counters
	sessions  []core.SessionRecord
	sessionAt map[string]int
	turns     []core.TurnRecord
	turnAt    map[string]int
	inputs    []pendingInput
	inputAt   map[inputKey]int
	events    []pendingEvent
	idem      []pendingAnswer
	// environment_records.go
	suspensions   []core.SuspensionRecord
	suspensionAt  map[string]int
	preparations  []core.EnvironmentPreparationRecord
	preparationAt map[string]int
}

type inputKey struct {
	turn  string
	index int
}

type pendingInput struct {
	turn string
	in   core.InputRecord
}

type pendingEvent struct {
	turn string
	ev   core.RunEvent
}

type pendingAnswer struct {
	key    string
	answer []byte
}

func newPending() *pending {
	return &pending{sessionAt: map[string]int{}, turnAt: map[string]int{}, inputAt: map[inputKey]int{},
		suspensionAt: map[string]int{}, preparationAt: map[string]int{}}
}

func (p *pending) putSession(r core.SessionRecord) {
	p.writes++
	p.sessions = upsert(p.sessions, p.sessionAt, r.ID, r)
}

func (p *pending) putTurn(r core.TurnRecord) {
	p.writes++
	p.turns = upsert(p.turns, p.turnAt, r.ID, r)
}

func (p *pending) putInput(turn string, in core.InputRecord) {
	p.writes++
	p.inputs = upsert(p.inputs, p.inputAt, inputKey{turn, in.Index}, pendingInput{turn, in})
}

func (p *pending) appendEvent(turn string, ev core.RunEvent) {
	p.writes++
	p.events = append(p.events, pendingEvent{turn, ev})
}

func upsert[K comparable, R any](list []R, at map[K]int, k K, r R) []R {
	if i, ok := at[k]; ok {
		list[i] = r
		return list
	}
	at[k] = len(list)
	return append(list, r)
}

// The writes of Commit.
const (
	upsertCounters = `INSERT INTO counters (id, sessions, turns, preparations) VALUES (1, $1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET sessions = excluded.sessions, turns = excluded.turns, preparations = excluded.preparations`
	upsertSession = `INSERT INTO sessions (id, seq, body) VALUES ($1, $2, $3)
		ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, body = excluded.body`
	upsertTurn = `INSERT INTO turns (id, seq, session, body) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, session = excluded.session, body = excluded.body`
	upsertInput = `INSERT INTO inputs (turn, idx, body) VALUES ($1, $2, $3)
		ON CONFLICT (turn, idx) DO UPDATE SET body = excluded.body`
	insertEvent  = `INSERT INTO events (turn, seq, type, kind, payload) VALUES ($1, $2, $3, $4, $5)`
	insertAnswer = `INSERT INTO idempotency (key, answer) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`
)

// Commit writes every core.Store write and PutIdempotent since the last
// Commit in one transaction, sent as one pipelined batch, and returns once
// the server has committed it. With nothing pending it does nothing. An
// error is final: the mirror is then ahead of the database, so the caller
// must stop the process and restart from the database (core.Restart);
// every later Commit returns the same error.
func (s *Store) Commit() error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	s.mu.Lock()
	if s.failure != nil || s.closed {
		err := s.failure
		s.mu.Unlock()
		if err == nil {
			err = ErrClosed
		}
		return err
	}
	p := s.pend
	if p.writes == 0 && len(p.idem) == 0 {
		s.mu.Unlock()
		return nil
	}
	s.pend = newPending()
	s.mu.Unlock()
	if err := s.commit(context.Background(), p); err != nil {
		err = fmt.Errorf("pgstore: %s: commit of %d writes failed (the store is now unusable; restart): %w",
			s.where, p.writes+len(p.idem), err)
		s.mu.Lock()
		s.failure = err
		s.mu.Unlock()
		return err
	}
	return nil
}

// batch is the statements of one Commit and what each writes.
type batch struct {
	b    pgx.Batch
	what []string
}

func (b *batch) add(what, q string, args ...any) {
	b.b.Queue(q, args...)
	b.what = append(b.what, what)
}

func (b *batch) addJSON(what, q string, body any, keys ...any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encode: %w", what, err)
	}
	b.add(what, q, append(keys, string(raw))...)
	return nil
}

func (s *Store) commit(ctx context.Context, p *pending) (err error) {
	var b batch
	if s.epoch > 0 {
		b.b.Queue(fenceQuery) // first, so the batch stays one round trip
	}
	if err := buildBatch(&b, p); err != nil {
		return err
	}
	tx, err := s.db.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreDone(tx.Rollback(ctx)))
		}
	}()
	br := tx.SendBatch(ctx, &b.b)
	if s.epoch > 0 {
		if err := s.checkFence(br.QueryRow()); err != nil {
			_ = br.Close()
			return err
		}
	}
	for _, what := range b.what {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	if err := br.Close(); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func ignoreDone(err error) error {
	if errors.Is(err, pgx.ErrTxClosed) {
		return nil
	}
	return err
}

func buildBatch(b *batch, p *pending) error {
	if c := p.counters; c != nil {
		b.add("counters", upsertCounters, i64(c.Sessions), i64(c.Turns), i64(c.Preparations))
	}
	for _, r := range p.sessions {
		if err := b.addJSON("session "+r.ID, upsertSession, r, r.ID, i64(r.Seq)); err != nil {
			return err
		}
	}
	for _, r := range p.turns {
		if err := b.addJSON("turn "+r.ID, upsertTurn, r, r.ID, i64(r.Seq), r.Session); err != nil {
			return err
		}
	}
	for _, r := range p.inputs {
		if err := b.addJSON(fmt.Sprintf("input %s/%d", r.turn, r.in.Index), upsertInput, r.in, r.turn, r.in.Index); err != nil {
			return err
		}
	}
	for _, r := range p.events {
		what := fmt.Sprintf("event %s/%d", r.turn, r.ev.Seq)
		kind, payload, err := encodePayload(r.ev.Payload)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		b.add(what, insertEvent, r.turn, i64(r.ev.Seq), r.ev.Type, kind, payload)
	}
	for _, a := range p.idem {
		b.add("idempotency answer", insertAnswer, []byte(a.key), a.answer)
	}
	return addEnvironmentRecords(b, p)
}

// i64 converts a sequence or counter for PostgreSQL's signed integers.
// The write methods refuse larger values (checkRange) before recording
// them.
func i64(v uint64) int64 {
	if v > math.MaxInt64 {
		panic(fmt.Sprintf("pgstore: value %d escaped the range check", v))
	}
	return int64(v)
}

// checkRange panics (fail-stop) on a sequence or counter PostgreSQL
// cannot hold; no machine mints one.
func checkRange(what string, vs ...uint64) {
	for _, v := range vs {
		if v > math.MaxInt64 {
			panic(fmt.Sprintf("pgstore: %s %d exceeds PostgreSQL's bigint range", what, v))
		}
	}
}

// checkText panics (fail-stop) on a key PostgreSQL text cannot hold: one
// with a NUL byte or invalid UTF-8. Wire IDs are UTF-8 without control
// characters, so no machine writes one.
func checkText(what string, vs ...string) {
	for _, v := range vs {
		if !validText(v) {
			panic(fmt.Sprintf("pgstore: %s %q is not text PostgreSQL can hold (NUL or invalid UTF-8)", what, v))
		}
	}
}

// validText reports whether PostgreSQL text can hold v.
func validText(v string) bool { return utf8.ValidString(v) && strings.IndexByte(v, 0) < 0 }
