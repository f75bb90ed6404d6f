package freelist

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestListKeepsUpToMaxAcrossCollections(t *testing.T) {
	l := &List{Max: 2}
	require.Nil(t, l.Get(), "an empty list gives nil")
	a, b, c := new(int), new(int), new(int)
	l.Put(a)
	l.Put(b)
	l.Put(c) // over Max: dropped
	require.Equal(t, 2, l.Len())
	runtime.GC()
	runtime.GC()
	require.Same(t, b, l.Get(), "the last value kept comes back first, after two collections")
	require.Same(t, a, l.Get())
	require.Nil(t, l.Get())
}

func TestListIsSafeForConcurrentUse(t *testing.T) {
	l := &List{Max: 4}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				v := l.Get()
				if v == nil {
					v = new(int)
				}
				l.Put(v)
			}
		})
	}
	wg.Wait()
	require.LessOrEqual(t, l.Len(), 4)
	require.Positive(t, l.Len())
}
