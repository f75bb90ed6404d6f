package wire

import (
	"bytes"
	"strings"
	"testing"
)

// TestPlainBase64MatchesReference: the one-scan path of bytes members
// takes exactly the tokens the long way takes as they are, and the rest
// (escapes, bad padding, bytes outside the alphabet, control bytes,
// unterminated) end as they did, decoded or refused like the reference.
func TestPlainBase64MatchesReference(t *testing.T) {
	long := strings.Repeat("QUJD", 4096)
	for _, data := range []string{
		`""`, `"aGk="`, `"aGk"`, `"aGk=="`, `"aG=="`, `"a==="`, `"===="`, `"aGk\u003d"`, `"QU\/D"`,
		`"QUJ D"`, `"QUJ` + "\n" + `D"`, `"QUJ` + "\x01" + `D"`, `"QUJé"`, `"QUJ-"`, `"QUJ_"`, `"QUJD`,
		`"` + long + `"`, `"` + long + `="`, `"QUI="`, `"QUJ="`,
	} {
		frame := `{"type":"workspace_read_result","id":"r","payload":{"state":"completed","data":` + data + `,"close_acknowledged":true}}`
		sameDecoding(t, []byte(frame))
	}
}

func TestPlainBase64TakesOnlyPlainTokens(t *testing.T) {
	for _, tc := range []struct {
		token string
		ok    bool
		want  string
	}{
		{`"aGk="`, true, "hi"},
		{`""`, true, ""},
		{`"aGk\u003d"`, false, ""}, // an escape: the long way
		{`"aGk"`, false, ""},       // unpadded
		{`"aG k="`, false, ""},     // outside the alphabet
		{`"aGk=`, false, ""},       // unterminated
	} {
		data := []byte(tc.token + `,"next":1`)
		sc := newScanner(data, TypeWorkspaceReadResult)
		b, ok := sc.plainBase64()
		if ok != tc.ok || (ok && !bytes.Equal(b, []byte(tc.want))) {
			t.Errorf("plainBase64(%s) = %q, %v; want %q, %v", tc.token, b, ok, tc.want, tc.ok)
			continue
		}
		if wantPos := len(tc.token); ok && sc.pos != wantPos {
			t.Errorf("plainBase64(%s) stopped at %d, want %d", tc.token, sc.pos, wantPos)
		}
		if !ok && sc.pos != 0 {
			t.Errorf("plainBase64(%s) refused but consumed %d bytes", tc.token, sc.pos)
		}
	}
}

// TestPlainBase64ValidIsValidBase64 compares the table-driven check with
// the strict scan's over every string of up to six bytes drawn from the
// alphabet's edges, the padding byte and bytes outside it.
func TestPlainBase64ValidIsValidBase64(t *testing.T) {
	pool := []byte("AZaz09+/=-_ \x00\xff")
	var walk func(b []byte)
	n := 0
	walk = func(b []byte) {
		n++
		if got, want := plainBase64Valid(b), validBase64(b); got != want {
			t.Fatalf("plainBase64Valid(%q) = %v, validBase64 = %v", b, got, want)
		}
		if len(b) == 6 {
			return
		}
		for _, c := range pool {
			walk(append(b, c))
		}
	}
	walk(nil)
	if n < 1000000 {
		t.Fatalf("only %d strings compared", n)
	}
}
