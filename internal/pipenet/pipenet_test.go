package pipenet

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"testing/synctest"
)

func TestDialReachesAccept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New()
		got := make(chan string, 1)
		go func() {
			c, err := l.Accept()
			if err != nil {
				got <- err.Error()
				return
			}
			b, _ := io.ReadAll(c)
			got <- string(b)
		}()
		c, err := l.Dial(context.Background(), "tcp", "ignored")
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("hello"))
		c.Close()
		if s := <-got; s != "hello" {
			t.Fatalf("server read %q", s)
		}
	})
}

func TestClosedListenerRefuses(t *testing.T) {
	l := New()
	l.Close()
	l.Close() // twice is fine
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after Close: %v", err)
	}
	if _, err := l.Dial(context.Background(), "tcp", ""); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Dial after Close: %v", err)
	}
}

func TestDialHonoursItsContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := New()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := l.Dial(ctx, "tcp", ""); !errors.Is(err, context.Canceled) {
			t.Fatalf("Dial with a cancelled context: %v", err)
		}
	})
}
