package api_test

import (
	"net/http"
	"testing"
)

// sdkEnv is Core's router over HTTP with an API key, as the SDK sees it.
type sdkEnv struct {
	t      *testing.T
	base   string
	key    string
	client *http.Client
}

func newSDKEnv(t *testing.T) *sdkEnv {
	t.Helper()
	e := newEnv(t)
	return &sdkEnv{t: t, base: e.ts.URL, key: apiKey, client: e.ts.Client()}
}
