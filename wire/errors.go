package wire

import (
	"errors"
	"fmt"
)

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
	ErrDuplicateField   = errors.New("wire: duplicate field")
	// ErrInvalidUTF8 marks a string or member name that is not valid
	// UTF-8 (or a lone surrogate escape) in a decoded frame, or a string
	// Encode was asked to send that is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("wire: invalid UTF-8")
)

// truncateForError bounds a value quoted in an error message.
func truncateForError(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// DecodeError is returned by Decode once the envelope was readable: it
// carries the frame's type string and correlation ID (empty when the ID was
// itself the problem) so a receiver can answer a rejected request, e.g. with
// `rejected invalid_start`. Err holds the named sentinel.
type DecodeError struct {
	Type string
	ID   string
	Err  error
}

func (e *DecodeError) Error() string { return e.Err.Error() }
func (e *DecodeError) Unwrap() error { return e.Err }

// CodeError is a validation failure that carries a protocol error code
// (e.g. unsupported_configuration). errors.Is(err, ErrInvalid) holds, and
// errors.As yields the code and the field it concerns.
type CodeError struct {
	Code   string // protocol error code
	Field  string // field path, e.g. execution_prepare.configuration.agent_options
	Detail string // short explanation; never echoes values
}

func (e *CodeError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%v: %s: %s", ErrInvalid, e.Field, e.Code)
	}
	return fmt.Sprintf("%v: %s: %s (%s)", ErrInvalid, e.Field, e.Code, e.Detail)
}

func (e *CodeError) Is(target error) bool { return target == ErrInvalid }

// ErrorCode returns the protocol code carried by err, or "" when err holds
// no CodeError.
func ErrorCode(err error) string {
	var ce *CodeError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return ""
}

// invalid builds an ErrInvalid error naming field.
func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, field, fmt.Sprintf(format, args...))
}

// missing builds an ErrMissingField error naming field.
func missing(field string) error {
	return fmt.Errorf("%w: %s", ErrMissingField, field)
}

// tooLarge builds an ErrTooLarge error naming field.
func tooLarge(field string, got, max int) error {
	return fmt.Errorf("%w: %s: %d exceeds %d", ErrTooLarge, field, got, max)
}
