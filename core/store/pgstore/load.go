package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

// checkPayload panics (fail-stop) on an event payload the store could
// not read back: one whose Go type is not the registered wire payload of
// its own type string.
func checkPayload(p wire.Payload) {
	if p == nil {
		return
	}
	zero, ok := wire.ZeroPayload(p.MessageType())
	if !ok || reflect.TypeOf(zero) != reflect.TypeOf(p) {
		panic(fmt.Sprintf("pgstore: event payload %T (type %q) is not a registered wire payload", p, p.MessageType()))
	}
}

// encodePayload renders an event payload as its wire type string (kind)
// and its JSON; a nil payload is kind "" and "null".
func encodePayload(p wire.Payload) (kind, payload string, err error) {
	if p == nil {
		return "", "null", nil
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return "", "", fmt.Errorf("encode payload: %w", err)
	}
	return p.MessageType(), string(raw), nil
}

func decodePayload(kind, payload string) (wire.Payload, error) {
	if kind == "" {
		if payload != "null" {
			return nil, fmt.Errorf("payload without kind")
		}
		return nil, nil
	}
	zero, ok := wire.ZeroPayload(kind)
	if !ok {
		return nil, fmt.Errorf("unknown payload kind %q", kind)
	}
	v := reflect.New(reflect.TypeOf(zero))
	if err := json.Unmarshal([]byte(payload), v.Interface()); err != nil {
		return nil, err
	}
	return v.Elem().Interface().(wire.Payload), nil
}

// load fills the mirror from the database, in one repeatable-read
// transaction so it sees one commit: counters, sessions and turns in
// (seq, first write) order, inputs by index, events by sequence, the
// idempotency answers and the environment records.
func (s *Store) load(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return classify(s.where, err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	mem := store.NewMemory()
	steps := []func(context.Context, pgx.Tx, *store.Memory) error{
		s.loadCounters, s.loadSessions, s.loadTurns, s.loadInputs, s.loadEvents, s.loadAnswers,
		s.loadSuspensions, s.loadPreparations,
	}
	for _, step := range steps {
		if err := step(ctx, tx, mem); err != nil {
			return err
		}
	}
	s.mem = mem
	return nil
}

func (s *Store) bad(what string, err error) error {
	return fmt.Errorf("%w: %s: %s: %v", ErrBadRecord, s.where, what, err)
}

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) pgx.Row
}

// rows runs q and calls each for every row, classifying errors.
func (s *Store) rows(ctx context.Context, db querier, q string, each func(pgx.Rows) error, args ...any) error {
	rs, err := db.Query(ctx, q, args...)
	if err != nil {
		return classify(s.where, err)
	}
	defer rs.Close()
	for rs.Next() {
		if err := each(rs); err != nil {
			return err
		}
	}
	if err := rs.Err(); err != nil {
		return classify(s.where, err)
	}
	return nil
}

func (s *Store) loadCounters(ctx context.Context, tx pgx.Tx, mem *store.Memory) error {
	return s.rows(ctx, tx, `SELECT sessions, turns, preparations FROM counters`, func(rs pgx.Rows) error {
		var a, b, c int64
		if err := rs.Scan(&a, &b, &c); err != nil {
			return s.bad("counters", err)
		}
		if a < 0 || b < 0 || c < 0 {
			return s.bad("counters", fmt.Errorf("negative value"))
		}
		mem.SaveCounters(core.Counters{Sessions: uint64(a), Turns: uint64(b), Preparations: uint64(c)})
		return nil
	})
}

func (s *Store) loadSessions(ctx context.Context, tx pgx.Tx, mem *store.Memory) error {
	return s.rows(ctx, tx, `SELECT id, body FROM sessions ORDER BY seq, ord`, func(rs pgx.Rows) error {
		var id, body string
		var r core.SessionRecord
		if err := scanJSON(rs, &body, &r, &id); err != nil || r.ID != id {
			return s.bad("session "+id, mismatch(err, id, r.ID))
		}
		mem.PutSession(r)
		return nil
	})
}

func (s *Store) loadTurns(ctx context.Context, tx pgx.Tx, mem *store.Memory) error {
	return s.rows(ctx, tx, `SELECT id, body FROM turns ORDER BY seq, ord`, func(rs pgx.Rows) error {
		var id, body string
		var r core.TurnRecord
		if err := scanJSON(rs, &body, &r, &id); err != nil || r.ID != id {
			return s.bad("turn "+id, mismatch(err, id, r.ID))
		}
		mem.PutTurn(r)
		return nil
	})
}

func (s *Store) loadInputs(ctx context.Context, tx pgx.Tx, mem *store.Memory) error {
	var last string
	var n int
	first := true
	return s.rows(ctx, tx, `SELECT turn, idx, body FROM inputs ORDER BY turn COLLATE "C", idx`, func(rs pgx.Rows) error {
		var turn, body string
		var idx int
		var r core.InputRecord
		if err := scanJSON(rs, &body, &r, &turn, &idx); err != nil {
			return s.bad(fmt.Sprintf("input %s/%d", turn, idx), err)
		}
		if first || turn != last {
			last, n, first = turn, 0, false
		}
		n++
		if idx != n || r.Index != idx {
			return s.bad(fmt.Sprintf("input %s/%d", turn, idx), fmt.Errorf("index %d (body %d) where %d was due", idx, r.Index, n))
		}
		mem.PutInput(turn, r)
		return nil
	})
}

func (s *Store) loadEvents(ctx context.Context, tx pgx.Tx, mem *store.Memory) error {
	var last string
	var n uint64
	first := true
	return s.rows(ctx, tx, `SELECT turn, seq, type, kind, payload FROM events ORDER BY turn COLLATE "C", seq`, func(rs pgx.Rows) error {
		var turn, typ, kind, payload string
		var seq int64
		if err := rs.Scan(&turn, &seq, &typ, &kind, &payload); err != nil {
			return s.bad("event", err)
		}
		what := fmt.Sprintf("event %s/%d", turn, seq)
		if first || turn != last {
			last, n, first = turn, 0, false
		}
		n++
		if seq < 1 || uint64(seq) != n {
			return s.bad(what, fmt.Errorf("sequence %d where %d was due", seq, n))
		}
		p, err := decodePayload(kind, payload)
		if err != nil {
			return s.bad(what, err)
		}
		mem.AppendEvent(turn, core.RunEvent{Seq: n, Type: typ, Payload: p})
		return nil
	})
}

func (s *Store) loadAnswers(ctx context.Context, tx pgx.Tx, _ *store.Memory) error {
	s.idem = map[string][]byte{}
	return s.rows(ctx, tx, `SELECT key, answer FROM idempotency`, func(rs pgx.Rows) error {
		var key, answer []byte
		if err := rs.Scan(&key, &answer); err != nil {
			return s.bad("idempotency answer", err)
		}
		if answer == nil {
			answer = []byte{}
		}
		s.idem[string(key)] = answer
		return nil
	})
}

// scanJSON scans the key columns into keys and the last column into body,
// then decodes body into v.
func scanJSON(rs pgx.Rows, body *string, v any, keys ...any) error {
	if err := rs.Scan(append(keys, body)...); err != nil {
		return err
	}
	return json.Unmarshal([]byte(*body), v)
}

func mismatch(err error, id, body string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("body names %q", body)
}
