package wire

import (
	"bytes"
	"encoding/base64"
)

// plainBase64 decodes a string token that holds only standard padded
// base64, the form every encoder writes, in one scan for its closing
// quote and one over the alphabet: such a token has no escape, control
// byte or non-ASCII byte, so scanner.str would take it as it is. ok is
// false, with nothing consumed, for any other token; decodeBase64 then
// judges it the long way, with the same result or error as before.
func (sc *scanner) plainBase64() (b []byte, ok bool) {
	start := sc.pos + 1 // past the opening quote
	end := bytes.IndexByte(sc.data[start:], '"')
	if end < 0 {
		return nil, false
	}
	raw := sc.data[start : start+end]
	if !plainBase64Valid(raw) {
		return nil, false
	}
	b = make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
	n, err := base64.StdEncoding.Decode(b, raw)
	if err != nil {
		return nil, false
	}
	sc.pos = start + end + 1
	return b[:n], true
}

// plainBase64Valid is validBase64 (a whole number of quads, at most two
// padding bytes, the rest from the alphabet) by table lookup.
func plainBase64Valid(b []byte) bool {
	if len(b)%4 != 0 {
		return false
	}
	n := len(b)
	for pad := 0; pad < 2 && n > 0 && b[n-1] == '='; pad++ {
		n--
	}
	for _, c := range b[:n] {
		if !base64Alphabet[c] {
			return false
		}
	}
	return true
}
