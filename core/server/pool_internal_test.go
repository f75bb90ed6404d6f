package server

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestEnrolledPoolListsLiveDevicesInOrder(t *testing.T) {
	m := NewMemory()
	at := time.Unix(0, 0)
	for _, id := range []string{"d3", "d1", "d2"} {
		if err := m.AddDevice(id, [32]byte{}, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.RevokeDevice("d2", at); err != nil {
		t.Fatal(err)
	}
	pool, err := enrolledPool(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"d1", "d3"}; !slices.Equal(pool, want) {
		t.Fatalf("revoked devices are not in the pool: got %v, want %v", pool, want)
	}
	pool, err = enrolledPool(m, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"d1"}; !slices.Equal(pool, want) {
		t.Fatalf("at most DevicesMax: got %v, want %v", pool, want)
	}
}

type failingDevices struct{ *Memory }

func (failingDevices) Devices() ([]Device, error) { return nil, errors.New("disk gone") }

func TestEnrolledPoolNamesAListingFailure(t *testing.T) {
	_, err := enrolledPool(failingDevices{NewMemory()}, 0)
	if want := "server: list devices: disk gone"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want one containing %q", err, want)
	}
}
