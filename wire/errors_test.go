package wire

import (
	"errors"
	"testing"
)

func TestCodeErrorWithoutDetail(t *testing.T) {
	err := error(&CodeError{Code: PrepInvalidConfiguration, Field: "execution_prepare.configuration.x"})
	if !errors.Is(err, ErrInvalid) || err.Error() != "wire: invalid: execution_prepare.configuration.x: invalid_configuration" {
		t.Errorf("%v", err)
	}
}
