package wire

// Byte tables of the scanner's hot loops (a lookup costs less than the
// comparisons it stands for).

// base64Alphabet marks the bytes of the standard alphabet (padding aside).
var base64Alphabet = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = true
	}
	return t
}()

// plainStringByte marks the bytes scanner.str passes over without a
// second look: printable ASCII other than the quote and the backslash.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
