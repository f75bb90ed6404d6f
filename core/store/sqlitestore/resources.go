package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/turnstile-sim/turnstile/core/store"
)

// Resource records (API objects that are not machine state) are written
// at once, each change in its own transaction like the device records, and
// read from the file.

// PutResource stores doc as record (kind, id): a new record joins the end
// of the creation order, a replaced one keeps its place.
func (s *Store) PutResource(_ context.Context, kind, id string, doc []byte) error {
	if kind == "" || id == "" || len(doc) == 0 {
		return fmt.Errorf("%w: empty kind, ID or document", store.ErrResourceArgument)
	}
	return s.operator(func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO resources (kind, id, body) VALUES (?, ?, ?)
			ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body`, kind, id, doc); err != nil {
			return classify(s.path, err)
		}
		return nil
	})
}

// GetResource returns record (kind, id); ok is false when there is none.
func (s *Store) GetResource(ctx context.Context, kind, id string) ([]byte, bool, error) {
	if kind == "" || id == "" {
		return nil, false, fmt.Errorf("%w: empty kind or ID", store.ErrResourceArgument)
	}
	if s.isClosed() {
		return nil, false, ErrClosed
	}
	var doc []byte
	err := s.db.QueryRowContext(ctx, `SELECT body FROM resources WHERE kind = ? AND id = ?`, kind, id).Scan(&doc)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, classify(s.path, err)
	}
	return doc, true, nil
}

// ListResources returns one page of the kind's records in creation order
// (newest first when q.Desc); store.ErrResourceCursor when q.After is not
// a record of the kind.
func (s *Store) ListResources(ctx context.Context, q store.ResourceQuery) (store.ResourcePage, error) {
	if err := store.CheckResourceQuery(q); err != nil {
		return store.ResourcePage{}, err
	}
	if s.isClosed() {
		return store.ResourcePage{}, ErrClosed
	}
	page := store.ResourcePage{Items: []store.Resource{}}
	err := s.operator(func(ctx context.Context, tx *sql.Tx) error {
		cmp, order := ">", "ASC"
		if q.Desc {
			cmp, order = "<", "DESC"
		}
		var from any = nil
		if q.After != "" {
			var seq int64
			err := tx.QueryRowContext(ctx, `SELECT seq FROM resources WHERE kind = ? AND id = ?`, q.Kind, q.After).Scan(&seq)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("%w: %q", store.ErrResourceCursor, q.After)
			}
			if err != nil {
				return classify(s.path, err)
			}
			from = seq
		}
		rs, err := tx.QueryContext(ctx, `SELECT id, body FROM resources WHERE kind = ? AND (? IS NULL OR seq `+cmp+` ?)
			ORDER BY seq `+order+` LIMIT ?`, q.Kind, from, from, q.Limit+1)
		if err != nil {
			return classify(s.path, err)
		}
		defer rs.Close()
		for rs.Next() {
			var r store.Resource
			if err := rs.Scan(&r.ID, &r.Doc); err != nil {
				return s.bad("resource", err)
			}
			page.Items = append(page.Items, r)
		}
		if err := rs.Err(); err != nil {
			return classify(s.path, err)
		}
		return nil
	})
	if err != nil {
		return store.ResourcePage{}, err
	}
	if len(page.Items) > q.Limit {
		page.Items, page.HasMore = page.Items[:q.Limit], true
	}
	return page, nil
}

// DeleteResource removes record (kind, id); ok is false when there was
// none.
func (s *Store) DeleteResource(_ context.Context, kind, id string) (bool, error) {
	if kind == "" || id == "" {
		return false, fmt.Errorf("%w: empty kind or ID", store.ErrResourceArgument)
	}
	var ok bool
	err := s.operator(func(ctx context.Context, tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM resources WHERE kind = ? AND id = ?`, kind, id)
		if err != nil {
			return classify(s.path, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return classify(s.path, err)
		}
		ok = n == 1
		return nil
	})
	return ok, err
}
