package wire

// EncodeUnverified is Encode without the strict scan of its own payload:
// it validates and renders the frame alike, but a payload that encodes to
// something the strict decoder refuses (a nil required list rendered as
// null, say) is returned instead of refused. It is for a sender that
// strictly decodes every frame it encoded before the frame leaves, as the
// simulated network's tap does; a real shell uses Encode.
func EncodeUnverified(f Frame) ([]byte, error) { return encode(f, false) }
