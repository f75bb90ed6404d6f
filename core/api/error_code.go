package api

import "errors"

// ErrorCode returns the public error code and HTTP status the API
// answers for a named machine error; ok is false for any other error.
func ErrorCode(err error) (code string, status int, ok bool) {
	for _, m := range machineErrors {
		if errors.Is(err, m.err) {
			return m.code, m.status, true
		}
	}
	return "", 0, false
}
