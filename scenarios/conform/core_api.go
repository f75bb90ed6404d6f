package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/scenarios/coreapi"
	"github.com/turnstile-sim/turnstile/wire"
)

// Gateway routes (wire-reference §2.2).
const (
	bootstrapPath = "/api/v1/agent-daemon/bootstrap"
	wsPath        = "/api/v1/agent-daemon/ws"
)

// Connect runs the device credential flow: bootstrap, then the WebSocket
// upgrade at the ws_url it returns, with this protocol version.
func (r *coreRun) Connect() {
	ctx, cancel := context.WithTimeout(context.Background(), r.o.FrameTimeout)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"device_id": r.t.Device})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.t.URL+bootstrapPath, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+r.t.Credential)
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.t.HTTP.Do(req)
	if err != nil {
		r.failf("bootstrap: %v", err)
		return
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	var boot struct {
		WSURL string `json:"ws_url"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &boot) != nil || boot.WSURL == "" {
		r.failf("bootstrap: status %d: %s", resp.StatusCode, b)
		return
	}
	u := boot.WSURL + "?" + url.Values{"device_id": {r.t.Device}, "version": {wire.Version}}.Encode()
	ws, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: r.t.HTTP,
		HTTPHeader: http.Header{"Authorization": {"Bearer " + r.t.Credential}}})
	if err != nil {
		r.failf("dial %s: %v", boot.WSURL, err)
		return
	}
	ws.SetReadLimit(wire.FrameBytesMax)
	c := &coreConn{ws: ws, q: newQueue()}
	go func() {
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				c.q.end(err)
				return
			}
			c.q.push(b)
		}
	}()
	r.conn, r.hb = c, nil
	r.all = append(r.all, c)
}

// versionRefused upgrades with another version: Core must answer 426
// incompatible_version before registering anything.
func (r *coreRun) VersionRefused(args map[string]string) {
	v := strings.ReplaceAll(args["version"], "$version", wire.Version)
	u := r.t.URL + wsPath + "?" + url.Values{"device_id": {r.t.Device}, "version": {v}}.Encode()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+r.t.Credential)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	resp, err := r.t.HTTP.Do(req)
	if err != nil {
		r.failf("upgrade with version %q: %v", v, err)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if want := args["status"]; want != "" && strconv.Itoa(resp.StatusCode) != want {
		r.failf("version %q: status %d, want %s (%s)", v, resp.StatusCode, want, body)
		return
	}
	var e struct {
		Error string `json:"error"`
	}
	if want := args["code"]; want != "" && (json.Unmarshal(body, &e) != nil || e.Error != want) {
		r.failf("version %q: body %s, want error %s", v, body, want)
		return
	}
	r.deviceNotConnected(v)
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
