package wire

// Validate checks a payload against its validator. Payloads without rules
// beyond their JSON shape validate as nil.
func Validate(p Payload) error {
	if v, ok := p.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}
