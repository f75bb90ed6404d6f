package world

import (
	"bytes"
	"testing"
)

// The fault marker is found where bytes.Index finds it, in lines with
// marks, spaces and near misses around it.
func TestIndexFaultMarkerMatchesIndex(t *testing.T) {
	for _, line := range []string{
		"", " !! fault x", "1.000000000 kernel !! fault conn_loss", "!! fault at the start",
		"a !!! fault b !! fault c", "x!! fault  y !! fault z", "no marker !! faul", "  !!  fault ",
		"d1 -> core heartbeat {\"note\":\"!! fault \"} !! fault late",
	} {
		if got, want := indexFaultMarker([]byte(line)), bytes.Index([]byte(line), []byte(" !! fault ")); got != want {
			t.Errorf("%q: %d, want %d", line, got, want)
		}
	}
}
