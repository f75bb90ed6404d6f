package world

import (
	"bytes"

	"github.com/turnstile-sim/turnstile/sim"
)

// Pads lends the buffers of padded frames from one run to the next. A
// padded frame (near or over the 4 MiB frame limit, hostile_proxy.go and
// hostile_rogue.go) is mostly whitespace; allocating and filling a fresh
// one costs more than the rest of an average seed's frames, most of it in
// page faults. A campaign's shell hands one internal/freelist.List to all
// its workers (Config.Pads); a *sync.Pool would do too, but it drops its
// buffers at every other collection. The world puts a buffer back only
// after its run has finished with every frame cut from it.
type Pads interface {
	Get() any
	Put(any)
}

// padBytesMax is the size of a lent buffer: the longest padded frame, one
// byte over the limit plus the rogue's up to 4 KiB.
const padBytesMax = sim.FrameBytesMax + 1 + 4096

// padBuf is a lent buffer: all spaces except b[:head], the last frame's
// bytes before its closing brace, and b[brace], that brace.
type padBuf struct {
	b           []byte
	head, brace int
}

// padTo pads an encoded frame with whitespace before its closing brace to
// n bytes (JSON ignores it); a frame already longer, or not an object, is
// returned as is. The padded frame is a new slice, never b.
func (u *universe) padTo(b []byte, n int) []byte {
	if len(b) >= n || len(b) == 0 || b[len(b)-1] != '}' {
		return b
	}
	if n > padBytesMax {
		panic("world: padTo beyond the longest padded frame")
	}
	var p *padBuf
	if u.cfg.Pads != nil {
		p, _ = u.cfg.Pads.Get().(*padBuf)
	}
	if p == nil {
		p = &padBuf{b: bytes.Repeat([]byte{' '}, padBytesMax)} // filled without zeroing first
	} else {
		for i := range p.head {
			p.b[i] = ' '
		}
		p.b[p.brace] = ' '
	}
	head := len(b) - 1
	out := p.b[:n:n]
	copy(out, b[:head])
	out[n-1] = '}'
	p.head, p.brace = head, n-1
	u.pads = append(u.pads, p)
	return out
}

// returnPads gives the run's padded-frame buffers back to Config.Pads; the
// run must hold no frame cut from them any more.
func (u *universe) returnPads() {
	if u.cfg.Pads != nil {
		for _, p := range u.pads {
			u.cfg.Pads.Put(p)
		}
	}
	u.pads = nil
}
