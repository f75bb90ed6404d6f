package store

import (
	"errors"
	"fmt"
)

// Errors of the resource records.
var (
	// ErrResourceCursor: the `after` cursor of a list is not a record of
	// the kind.
	ErrResourceCursor = errors.New("store: unknown cursor")
	// ErrResourceArgument: an empty kind or ID, an empty document or a
	// limit outside 1..ResourceLimitMax.
	ErrResourceArgument = errors.New("store: invalid resource argument")
)

// ResourceLimitMax bounds one page of a resource list.
const ResourceLimitMax = 1000

// Resource is one stored API object: its ID and its JSON document.
type Resource struct {
	ID  string
	Doc []byte
}

// ResourceQuery selects one page of a kind's records in creation order
// (Desc: newest first), after the record with ID After (exclusive; empty:
// from the start).
type ResourceQuery struct {
	Kind  string
	After string
	Limit int
	Desc  bool
}

// ResourcePage is one page of records; HasMore tells whether records
// follow the last one.
type ResourcePage struct {
	Items   []Resource
	HasMore bool
}

// CheckResource validates a kind and an ID.
func CheckResource(kind, id string) error {
	if kind == "" || id == "" {
		return fmt.Errorf("%w: empty kind or ID", ErrResourceArgument)
	}
	return nil
}

// CheckResourceQuery validates a query.
func CheckResourceQuery(q ResourceQuery) error {
	if q.Kind == "" {
		return fmt.Errorf("%w: empty kind", ErrResourceArgument)
	}
	if q.Limit < 1 || q.Limit > ResourceLimitMax {
		return fmt.Errorf("%w: limit %d outside 1..%d", ErrResourceArgument, q.Limit, ResourceLimitMax)
	}
	return nil
}
