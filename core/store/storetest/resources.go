package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/turnstile-sim/turnstile/core/store"
)

// Resources is the resource-record contract (api.MemoryResources and
// sqlitestore.Store implement it).
type Resources interface {
	PutResource(ctx context.Context, kind, id string, doc []byte) error
	GetResource(ctx context.Context, kind, id string) ([]byte, bool, error)
	ListResources(ctx context.Context, q store.ResourceQuery) (store.ResourcePage, error)
	DeleteResource(ctx context.Context, kind, id string) (bool, error)
}

func ids(p store.ResourcePage) []string {
	out := []string{}
	for _, r := range p.Items {
		out = append(out, r.ID)
	}
	return out
}

// RunResources runs the resource contract. open returns a new empty store
// and, for a durable store, a reopen giving the same records as a new
// store (nil for a memory store: the durability case is not run).
func RunResources(t *testing.T, durable bool, open func(t *testing.T) (Resources, func() Resources)) {
	ctx := context.Background()
	t.Run("put get replace delete", func(t *testing.T) {
		st, _ := open(t)
		if _, ok, err := st.GetResource(ctx, "agent", "a1"); ok || err != nil {
			t.Fatalf("get of nothing: %v %v", ok, err)
		}
		must(t, st.PutResource(ctx, "agent", "a1", []byte(`{"v":1}`)))
		must(t, st.PutResource(ctx, "vault", "a1", []byte(`{"other":true}`)))
		if doc, ok, err := st.GetResource(ctx, "agent", "a1"); !ok || err != nil || string(doc) != `{"v":1}` {
			t.Fatalf("get: %s %v %v", doc, ok, err)
		}
		must(t, st.PutResource(ctx, "agent", "a1", []byte(`{"v":2}`)))
		if doc, _, _ := st.GetResource(ctx, "agent", "a1"); string(doc) != `{"v":2}` {
			t.Fatalf("replaced: %s", doc)
		}
		if ok, err := st.DeleteResource(ctx, "agent", "a1"); !ok || err != nil {
			t.Fatalf("delete: %v %v", ok, err)
		}
		if ok, err := st.DeleteResource(ctx, "agent", "a1"); ok || err != nil {
			t.Fatalf("second delete: %v %v", ok, err)
		}
		if _, ok, _ := st.GetResource(ctx, "agent", "a1"); ok {
			t.Fatal("deleted record still there")
		}
		if doc, ok, _ := st.GetResource(ctx, "vault", "a1"); !ok || string(doc) != `{"other":true}` {
			t.Fatalf("the other kind lost its record: %s", doc)
		}
	})
	t.Run("pages in creation order", func(t *testing.T) {
		st, _ := open(t)
		for _, id := range []string{"c", "a", "e", "b", "d"} {
			must(t, st.PutResource(ctx, "agent", id, []byte(`{}`)))
		}
		must(t, st.PutResource(ctx, "agent", "a", []byte(`{"again":1}`))) // keeps its place
		must(t, st.PutResource(ctx, "session", "z", []byte(`{}`)))
		p, err := st.ListResources(ctx, store.ResourceQuery{Kind: "agent", Limit: 2})
		if err != nil || !slices.Equal(ids(p), []string{"c", "a"}) || !p.HasMore {
			t.Fatalf("page 1: %v %v %v", ids(p), p.HasMore, err)
		}
		p, err = st.ListResources(ctx, store.ResourceQuery{Kind: "agent", After: "a", Limit: 3})
		if err != nil || !slices.Equal(ids(p), []string{"e", "b", "d"}) || p.HasMore {
			t.Fatalf("page 2: %v %v %v", ids(p), p.HasMore, err)
		}
		p, err = st.ListResources(ctx, store.ResourceQuery{Kind: "agent", Limit: 2, Desc: true, After: "b"})
		if err != nil || !slices.Equal(ids(p), []string{"e", "a"}) || !p.HasMore {
			t.Fatalf("desc page: %v %v %v", ids(p), p.HasMore, err)
		}
		p, err = st.ListResources(ctx, store.ResourceQuery{Kind: "nothing", Limit: 5})
		if err != nil || len(p.Items) != 0 || p.HasMore || p.Items == nil {
			t.Fatalf("empty kind: %#v %v", p, err)
		}
		if _, err := st.ListResources(ctx, store.ResourceQuery{Kind: "agent", After: "z", Limit: 2}); !errors.Is(err, store.ErrResourceCursor) {
			t.Fatalf("cursor of another kind: %v", err)
		}
		for _, l := range []int{0, -1, store.ResourceLimitMax + 1} {
			if _, err := st.ListResources(ctx, store.ResourceQuery{Kind: "agent", Limit: l}); !errors.Is(err, store.ErrResourceArgument) {
				t.Fatalf("limit %d: %v", l, err)
			}
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		st, _ := open(t)
		for i, err := range []error{
			st.PutResource(ctx, "", "x", []byte(`{}`)),
			st.PutResource(ctx, "agent", "", []byte(`{}`)),
			st.PutResource(ctx, "agent", "x", nil),
		} {
			if !errors.Is(err, store.ErrResourceArgument) {
				t.Errorf("case %d: %v", i, err)
			}
		}
		if _, _, err := st.GetResource(ctx, "", "x"); !errors.Is(err, store.ErrResourceArgument) {
			t.Errorf("get: %v", err)
		}
		if _, err := st.DeleteResource(ctx, "agent", ""); !errors.Is(err, store.ErrResourceArgument) {
			t.Errorf("delete: %v", err)
		}
	})
	if !durable {
		return
	}
	t.Run("reopen keeps records and order", func(t *testing.T) {
		st, reopen := open(t)
		for i := range 3 {
			must(t, st.PutResource(ctx, "agent", fmt.Sprintf("a%d", i), []byte(fmt.Sprintf(`{"n":%d}`, i))))
		}
		_, _ = st.DeleteResource(ctx, "agent", "a1")
		st2 := reopen()
		p, err := st2.ListResources(ctx, store.ResourceQuery{Kind: "agent", Limit: 10})
		if err != nil || !slices.Equal(ids(p), []string{"a0", "a2"}) || string(p.Items[1].Doc) != `{"n":2}` {
			t.Fatalf("after reopen: %v %v", ids(p), err)
		}
		must(t, st2.PutResource(ctx, "agent", "a3", []byte(`{}`)))
		p, _ = st2.ListResources(ctx, store.ResourceQuery{Kind: "agent", Limit: 10})
		if !slices.Equal(ids(p), []string{"a0", "a2", "a3"}) {
			t.Fatalf("order after reopen: %v", ids(p))
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
