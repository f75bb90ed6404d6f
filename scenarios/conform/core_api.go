package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
)

// VersionRefused upgrades with another version: Core must answer 426
// incompatible_version before registering anything.
func (r *coreRun) VersionRefused(args map[string]string) {
	if v, ok := r.RefusedUpgrade(args); ok {
		r.deviceNotConnected(v)
	}
}

// deviceNotConnected checks through the public API that the refused
// upgrade registered no connection.
func (r *coreRun) deviceNotConnected(v string) {
	if r.t.APIToken == "" {
		r.notf("version %q: that no device registered (needs the public API)", v)
		return
	}
	st, b, err := r.apiCall(http.MethodGet, "/core/v1/devices", "")
	var page struct {
		Devices []struct {
			ID        string `json:"id"`
			Connected bool   `json:"connected"`
		} `json:"devices"`
	}
	if err != nil || st != http.StatusOK || json.Unmarshal(b, &page) != nil {
		r.notf("version %q: that no device registered (GET /core/v1/devices: %d %v)", v, st, err)
		return
	}
	for _, d := range page.Devices {
		if d.ID == r.t.Device && d.Connected {
			r.failf("version %q: device %s is connected after the refused upgrade", v, d.ID)
		}
	}
}

// apiCall makes one request of Core's HTTP API: a /v1 path with the API
// key, any other with the operator token.
func (r *coreRun) apiCall(method, path, body string) (int, []byte, error) {
	return r.apiCallWait(method, path, body, r.o.FrameTimeout)
}

// apiCallWait is apiCall with its own bound on the answer.
func (r *coreRun) apiCallWait(method, path, body string, wait time.Duration) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.t.APIURL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	secret := r.t.APIToken
	if strings.HasPrefix(path, "/v1/") {
		secret = r.t.APIKey
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.t.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// post makes an API call; a refusal is a *coreapi.Refused.
func (r *coreRun) post(path, body string) ([]byte, error) {
	st, b, err := r.apiCall(http.MethodPost, path, body)
	switch {
	case err != nil:
		return nil, fmt.Errorf("POST %s: %v", path, err)
	case st/100 != 2:
		return b, &coreapi.Refused{Code: errorCode(b), Call: "POST " + path, Err: fmt.Errorf("%d %s", st, b)}
	}
	return b, nil
}

// errorCode is the code of an error answer: the Agents API's
// {"error":{"code"}} or an operator route's {"error":<code>}.
func errorCode(b []byte) string {
	var v1 struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &v1) == nil && v1.Error.Code != "" {
		return v1.Error.Code
	}
	var op struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(b, &op)
	return op.Error
}
