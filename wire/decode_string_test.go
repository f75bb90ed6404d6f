package wire

import "testing"

func TestPlainStringTakesOnlyPlainTokens(t *testing.T) {
	for _, tc := range []struct {
		token, want string
		ok          bool
	}{
		{`"abc"`, "abc", true},
		{`""`, "", true},
		{`"a b~"`, "a b~", true},
		{`"a\"b"`, "", false},   // an escape
		{`"é"`, "", false},      // non-ASCII: str checks the UTF-8
		{"\"a\tb\"", "", false}, // a control byte: str refuses it
		{`"abc`, "", false},     // unterminated
	} {
		sc := newScanner([]byte(tc.token+`:1`), TypeDelta)
		raw, ok := sc.plainString()
		switch {
		case ok != tc.ok || string(raw) != tc.want:
			t.Errorf("plainString(%s) = %q, %v; want %q, %v", tc.token, raw, ok, tc.want, tc.ok)
		case ok && sc.pos != len(tc.token):
			t.Errorf("plainString(%s) stopped at %d", tc.token, sc.pos)
		case !ok && sc.pos != 0:
			t.Errorf("plainString(%s) refused but consumed %d bytes", tc.token, sc.pos)
		}
	}
}

// TestDecodeMemberNameIsMemberName: the decoder's member names (plain or
// not, well formed or not) read as scanner.memberName reads them.
func TestDecodeMemberNameIsMemberName(t *testing.T) {
	for _, in := range []string{
		`"delta":1`, ` "delta" : 1`, `"del\u0074a":1`, `"dé":1`, `"delta" 1`, `"delta"`, `"delta`, `delta:1`, ``, `"":1`,
	} {
		a := newScanner([]byte(in), TypeDelta)
		b := newScanner([]byte(in), TypeDelta)
		got, gerr := a.decodeMemberName()
		want, werr := b.memberName()
		if string(got) != string(want) || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) || a.pos != b.pos {
			t.Errorf("%q: decodeMemberName %q, %v at %d; memberName %q, %v at %d", in, got, gerr, a.pos, want, werr, b.pos)
		}
	}
}
