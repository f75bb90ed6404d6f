package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"

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

// statements are the prepared writes of Commit.
type statements struct {
	counters, session, turn, input, event, answer *sql.Stmt
	suspension, preparation                       *sql.Stmt
}

func (st *statements) prepare(ctx context.Context, db *sql.DB) error {
	var err error
	prep := func(q string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = db.PrepareContext(ctx, q)
		return s
	}
	st.counters = prep(`INSERT INTO counters (id, sessions, turns, preparations) VALUES (1, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET sessions = excluded.sessions, turns = excluded.turns, preparations = excluded.preparations`)
	st.session = prep(`INSERT INTO sessions (id, seq, body) VALUES (?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, body = excluded.body`)
	st.turn = prep(`INSERT INTO turns (id, seq, session, body) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, session = excluded.session, body = excluded.body`)
	st.input = prep(`INSERT INTO inputs (turn, idx, body) VALUES (?, ?, ?)
		ON CONFLICT (turn, idx) DO UPDATE SET body = excluded.body`)
	st.event = prep(`INSERT INTO events (turn, seq, type, kind, payload) VALUES (?, ?, ?, ?, ?)`)
	st.answer = prep(`INSERT INTO idempotency (key, answer) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`)
	st.suspension = prep(upsertSuspension)
	st.preparation = prep(upsertPreparation)
	if err != nil {
		st.close()
	}
	return err
}

func (st *statements) close() {
	for _, s := range []*sql.Stmt{st.counters, st.session, st.turn, st.input, st.event, st.answer, st.suspension, st.preparation} {
		if s != nil {
			_ = s.Close()
		}
	}
}

// Commit writes every core.Store write and PutIdempotent since the last
// Commit in one transaction, and returns once it is durable
// (synchronous=FULL). With nothing pending it does nothing. An error is
// final: the mirror is then ahead of the disk, so the caller must stop the
// process and restart from the file (core.Restart); every later Commit
// returns the same error.
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
		err = fmt.Errorf("sqlitestore: %s: commit of %d writes failed (the store is now unusable; restart): %w",
			s.path, p.writes+len(p.idem), err)
		s.mu.Lock()
		s.failure = err
		s.mu.Unlock()
		return err
	}
	return nil
}

func (s *Store) commit(ctx context.Context, p *pending) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, ignoreDone(tx.Rollback()))
		}
	}()
	if err := writeBatch(ctx, txStmts{tx: tx, of: map[*sql.Stmt]*sql.Stmt{}}, &s.stmt, p); err != nil {
		return err
	}
	return tx.Commit()
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// txStmts binds the prepared statements to one transaction, once each.
type txStmts struct {
	tx *sql.Tx
	of map[*sql.Stmt]*sql.Stmt
}

func (t txStmts) get(ctx context.Context, s *sql.Stmt) *sql.Stmt {
	if b, ok := t.of[s]; ok {
		return b
	}
	b := t.tx.StmtContext(ctx, s)
	t.of[s] = b
	return b
}

func writeBatch(ctx context.Context, tx txStmts, st *statements, p *pending) error {
	if c := p.counters; c != nil {
		if err := exec(ctx, tx, st.counters, "counters", i64(c.Sessions), i64(c.Turns), i64(c.Preparations)); err != nil {
			return err
		}
	}
	for _, r := range p.sessions {
		if err := execJSON(ctx, tx, st.session, "session "+r.ID, r, r.ID, i64(r.Seq)); err != nil {
			return err
		}
	}
	for _, r := range p.turns {
		if err := execJSON(ctx, tx, st.turn, "turn "+r.ID, r, r.ID, i64(r.Seq), r.Session); err != nil {
			return err
		}
	}
	for _, r := range p.inputs {
		if err := execJSON(ctx, tx, st.input, fmt.Sprintf("input %s/%d", r.turn, r.in.Index), r.in, r.turn, r.in.Index); err != nil {
			return err
		}
	}
	for _, r := range p.events {
		what := fmt.Sprintf("event %s/%d", r.turn, r.ev.Seq)
		kind, payload, err := encodePayload(r.ev.Payload)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if err := exec(ctx, tx, st.event, what, r.turn, i64(r.ev.Seq), r.ev.Type, kind, payload); err != nil {
			return err
		}
	}
	for _, a := range p.idem {
		if err := exec(ctx, tx, st.answer, "idempotency answer", a.key, a.answer); err != nil {
			return err
		}
	}
	return writeEnvironmentRecords(ctx, tx, st, p)
}

func exec(ctx context.Context, tx txStmts, stmt *sql.Stmt, what string, args ...any) error {
	if _, err := tx.get(ctx, stmt).ExecContext(ctx, args...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// execJSON writes body as the JSON column after the key columns.
func execJSON(ctx context.Context, tx txStmts, stmt *sql.Stmt, what string, body any, keys ...any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encode: %w", what, err)
	}
	return exec(ctx, tx, stmt, what, append(keys, string(raw))...)
}

// i64 converts a sequence or counter for SQLite's signed integers. The
// write methods refuse larger values (checkRange) before recording them.
func i64(v uint64) int64 {
	if v > math.MaxInt64 {
		panic(fmt.Sprintf("sqlitestore: value %d escaped the range check", v))
	}
	return int64(v)
}

// checkRange panics (fail-stop) on a sequence or counter SQLite cannot
// hold; no machine mints one.
func checkRange(what string, vs ...uint64) {
	for _, v := range vs {
		if v > math.MaxInt64 {
			panic(fmt.Sprintf("sqlitestore: %s %d exceeds SQLite's integer range", what, v))
		}
	}
}
