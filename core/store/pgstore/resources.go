package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/turnstile-sim/turnstile/core/store"
)

// Resource records (API objects that are not machine state: Agents, API
// keys, Vaults and their credentials) are written at once, each change in
// its own transaction like the device records, and read from the
// database.

// PutResource stores doc as record (kind, id): a new record joins the end
// of the creation order, a replaced one keeps its place.
func (s *Store) PutResource(_ context.Context, kind, id string, doc []byte) error {
	if kind == "" || id == "" || len(doc) == 0 {
		return fmt.Errorf("%w: empty kind, ID or document", store.ErrResourceArgument)
	}
	if err := checkResourceText(kind, id); err != nil {
		return err
	}
	return s.operator(func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO resources (kind, id, body) VALUES ($1, $2, $3)
			ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body`, kind, id, doc); err != nil {
			return classify(s.where, err)
		}
		return nil
	})
}

// checkResourceText refuses a kind or ID PostgreSQL text cannot hold.
func checkResourceText(kind, id string) error {
	if !validText(kind) || !validText(id) {
		return fmt.Errorf("%w: kind or ID with a NUL byte or invalid UTF-8", store.ErrResourceArgument)
	}
	return nil
}

// GetResource returns record (kind, id); ok is false when there is none.
func (s *Store) GetResource(ctx context.Context, kind, id string) ([]byte, bool, error) {
	if kind == "" || id == "" {
		return nil, false, fmt.Errorf("%w: empty kind or ID", store.ErrResourceArgument)
	}
	if s.isClosed() {
		return nil, false, ErrClosed
	}
	if checkResourceText(kind, id) != nil {
		return nil, false, nil // no such record can be stored
	}
	var doc []byte
	err := s.db.QueryRow(ctx, `SELECT body FROM resources WHERE kind = $1 AND id = $2`, kind, id).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, classify(s.where, err)
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
	err := s.operator(func(ctx context.Context, tx pgx.Tx) error {
		cmp, order := ">", "ASC"
		if q.Desc {
			cmp, order = "<", "DESC"
		}
		var from *int64
		if q.After != "" {
			if checkResourceText(q.Kind, q.After) != nil {
				return fmt.Errorf("%w: %q", store.ErrResourceCursor, q.After)
			}
			var seq int64
			err := tx.QueryRow(ctx, `SELECT seq FROM resources WHERE kind = $1 AND id = $2`, q.Kind, q.After).Scan(&seq)
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("%w: %q", store.ErrResourceCursor, q.After)
			}
			if err != nil {
				return classify(s.where, err)
			}
			from = &seq
		}
		return s.rows(ctx, tx, `SELECT id, body FROM resources WHERE kind = $1 AND ($2::bigint IS NULL OR seq `+cmp+` $2)
			ORDER BY seq `+order+` LIMIT $3`, func(rs pgx.Rows) error {
			var r store.Resource
			if err := rs.Scan(&r.ID, &r.Doc); err != nil {
				return s.bad("resource", err)
			}
			page.Items = append(page.Items, r)
			return nil
		}, q.Kind, from, q.Limit+1)
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
	if checkResourceText(kind, id) != nil {
		return false, nil // no such record can be stored
	}
	var ok bool
	err := s.operator(func(ctx context.Context, tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM resources WHERE kind = $1 AND id = $2`, kind, id)
		if err != nil {
			return classify(s.where, err)
		}
		ok = tag.RowsAffected() == 1
		return nil
	})
	return ok, err
}
