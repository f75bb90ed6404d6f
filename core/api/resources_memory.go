package api

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/turnstile-sim/turnstile/core/store"
)

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
	if err := store.CheckResource(kind, id); err != nil {
		return err
	}
	if len(doc) == 0 {
		return fmt.Errorf("%w: empty document", store.ErrResourceArgument)
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
	if err := store.CheckResource(kind, id); err != nil {
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
func (m *MemoryResources) ListResources(_ context.Context, q store.ResourceQuery) (store.ResourcePage, error) {
	if err := store.CheckResourceQuery(q); err != nil {
		return store.ResourcePage{}, err
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
			return store.ResourcePage{}, fmt.Errorf("%w: %q", store.ErrResourceCursor, q.After)
		}
		start = i + 1
	}
	rest := all[start:]
	page := store.ResourcePage{Items: []store.Resource{}, HasMore: len(rest) > q.Limit}
	for _, r := range rest[:min(len(rest), q.Limit)] {
		page.Items = append(page.Items, store.Resource{ID: r.id, Doc: slices.Clone(r.doc)})
	}
	return page, nil
}

// DeleteResource removes record (kind, id); ok is false when there was
// none.
func (m *MemoryResources) DeleteResource(_ context.Context, kind, id string) (bool, error) {
	if err := store.CheckResource(kind, id); err != nil {
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
