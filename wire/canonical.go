package wire

import "encoding/json"

// canonicalRaw returns raw as json.Marshal writes it.
func canonicalRaw(raw []byte) []byte {
	out, err := json.Marshal(json.RawMessage(raw))
	if err != nil {
		return raw // the scanner accepted it; Marshal cannot fail here
	}
	return out
}
