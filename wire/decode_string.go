package wire

// The walker's strings. Most member names and string values are
// printable ASCII without escapes; plainString takes those in one
// table-driven run. Anything else goes through scanner.str (and
// memberName) from the opening quote, with the same result or error.

// plainString reads the string token at sc.pos (its opening quote) when
// every byte up to the closing quote is plain (plainStringByte); ok is
// false, with nothing consumed, otherwise.
func (sc *scanner) plainString() (raw []byte, ok bool) {
	start := sc.pos + 1
	i := start
	for i < len(sc.data) && plainStringByte[sc.data[i]] {
		i++
	}
	if i >= len(sc.data) || sc.data[i] != '"' {
		return nil, false
	}
	sc.pos = i + 1
	return sc.data[start:i], true
}

// decodeMemberName is memberName with the plainString fast path.
func (sc *scanner) decodeMemberName() ([]byte, error) {
	sc.skipSpace()
	start := sc.pos
	if sc.pos < len(sc.data) && sc.data[sc.pos] == '"' {
		if raw, ok := sc.plainString(); ok {
			sc.skipSpace()
			if sc.pos < len(sc.data) && sc.data[sc.pos] == ':' {
				sc.pos++
				return raw, nil
			}
		}
	}
	sc.pos = start
	return sc.memberName()
}
