package server

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestEnrolledPoolListsLiveDevicesInOrder(t *testing.T) {
	m := NewMemory()
	at := time.Unix(0, 0)
	for _, id := range []string{"d3", "d1", "d2"} {
		require.NoError(t, m.AddDevice(id, [32]byte{}, at))
	}
	require.NoError(t, m.RevokeDevice("d2", at))
	pool, err := enrolledPool(m, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"d1", "d3"}, pool, "revoked devices are not in the pool")
	pool, err = enrolledPool(m, 1)
	require.NoError(t, err)
	require.Equal(t, []string{"d1"}, pool, "at most DevicesMax")
}

type failingDevices struct{ *Memory }

func (failingDevices) Devices() ([]Device, error) { return nil, errors.New("disk gone") }

func TestEnrolledPoolNamesAListingFailure(t *testing.T) {
	_, err := enrolledPool(failingDevices{NewMemory()}, 0)
	require.ErrorContains(t, err, "server: list devices: disk gone")
}
