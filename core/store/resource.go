package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
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

func checkResource(kind, id string) error {
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

// MemoryResources keeps resource records in memory (tests, and a Core
// without a durable store). Safe for concurrent use; it copies documents
// on the way in and out.
type MemoryResources struct {
	mu   sync.Mutex
	seq  uint64
	recs map[string][]memRes // by kind, in creation order
}

type memRes struct {
	seq uint64
	id  string
	doc []byte
}

// NewMemoryResources returns an empty MemoryResources.
func NewMemoryResources() *MemoryResources { return &MemoryResources{recs: map[string][]memRes{}} }

func (m *MemoryResources) find(kind, id string) int {
	return slices.IndexFunc(m.recs[kind], func(r memRes) bool { return r.id == id })
}

// PutResource stores doc as record (kind, id): a new record joins the end
// of the creation order, a replaced one keeps its place.
func (m *MemoryResources) PutResource(_ context.Context, kind, id string, doc []byte) error {
	if err := checkResource(kind, id); err != nil {
		return err
	}
	if len(doc) == 0 {
		return fmt.Errorf("%w: empty document", ErrResourceArgument)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := m.find(kind, id); i >= 0 {
		m.recs[kind][i].doc = slices.Clone(doc)
		return nil
	}
	m.seq++
	m.recs[kind] = append(m.recs[kind], memRes{seq: m.seq, id: id, doc: slices.Clone(doc)})
	return nil
}

// GetResource returns record (kind, id); ok is false when there is none.
func (m *MemoryResources) GetResource(_ context.Context, kind, id string) ([]byte, bool, error) {
	if err := checkResource(kind, id); err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	i := m.find(kind, id)
	if i < 0 {
		return nil, false, nil
	}
	return slices.Clone(m.recs[kind][i].doc), true, nil
}

// ListResources returns one page of the kind's records.
func (m *MemoryResources) ListResources(_ context.Context, q ResourceQuery) (ResourcePage, error) {
	if err := CheckResourceQuery(q); err != nil {
		return ResourcePage{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	all := slices.Clone(m.recs[q.Kind])
	if q.Desc {
		slices.Reverse(all)
	}
	start := 0
	if q.After != "" {
		i := slices.IndexFunc(all, func(r memRes) bool { return r.id == q.After })
		if i < 0 {
			return ResourcePage{}, fmt.Errorf("%w: %q", ErrResourceCursor, q.After)
		}
		start = i + 1
	}
	rest := all[start:]
	page := ResourcePage{Items: []Resource{}, HasMore: len(rest) > q.Limit}
	for _, r := range rest[:min(len(rest), q.Limit)] {
		page.Items = append(page.Items, Resource{ID: r.id, Doc: slices.Clone(r.doc)})
	}
	return page, nil
}

// DeleteResource removes record (kind, id); ok is false when there was
// none.
func (m *MemoryResources) DeleteResource(_ context.Context, kind, id string) (bool, error) {
	if err := checkResource(kind, id); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	i := m.find(kind, id)
	if i < 0 {
		return false, nil
	}
	m.recs[kind] = slices.Delete(m.recs[kind], i, i+1)
	return true, nil
}
