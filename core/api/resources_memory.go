package api

import (
	"cmp"
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
	recs map[string][]memRes          // by kind, in creation order (ascending seq)
	idx  map[string]map[string]uint64 // by kind, each record's seq by ID
}

type memRes struct {
	seq uint64
	id  string
	doc []byte
}

// NewMemoryResources returns an empty MemoryResources.
func NewMemoryResources() *MemoryResources {
	return &MemoryResources{recs: map[string][]memRes{}, idx: map[string]map[string]uint64{}}
}

// find returns the index of record (kind, id) in its kind's creation
// order, or -1: the ID's seq by the index, its place by binary search.
func (m *MemoryResources) find(kind, id string) int {
	seq, ok := m.idx[kind][id]
	if !ok {
		return -1
	}
	i, found := slices.BinarySearchFunc(m.recs[kind], seq, func(r memRes, s uint64) int { return cmp.Compare(r.seq, s) })
	if !found {
		return -1
	}
	return i
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
	if m.idx[kind] == nil {
		m.idx[kind] = map[string]uint64{}
	}
	m.idx[kind][id] = m.seq
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
	all := m.recs[q.Kind]
	if q.Desc {
		all = slices.Clone(all)
		slices.Reverse(all)
	}
	start := 0
	if q.After != "" {
		i := m.find(q.Kind, q.After)
		if i < 0 {
			return store.ResourcePage{}, fmt.Errorf("%w: %q", store.ErrResourceCursor, q.After)
		}
		if q.Desc {
			i = len(all) - 1 - i
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
	delete(m.idx[kind], id)
	return true, nil
}
