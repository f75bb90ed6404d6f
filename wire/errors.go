package wire

import "errors"

// Named decode and validation errors. Callers tell them apart with errors.Is;
// wrapped messages name the offending field but never echo oversized or
// secret values.
var (
	ErrUnknownType      = errors.New("wire: unknown message type")
	ErrUnknownField     = errors.New("wire: unknown field")
	ErrMissingField     = errors.New("wire: missing required field")
	ErrNull             = errors.New("wire: null not allowed")
	ErrWrongType        = errors.New("wire: wrong JSON type")
	ErrTooLarge         = errors.New("wire: too large")
	ErrInvalid          = errors.New("wire: invalid")
	ErrSyntax           = errors.New("wire: malformed JSON")
	ErrTrailingData     = errors.New("wire: trailing data after JSON value")
	ErrImageUnsupported = errors.New("wire: image input not supported by a text-only transport")
)

// truncateForError bounds a value quoted in an error message.
func truncateForError(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
