package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/wire"
)

// Routes of Core's daemon API (wire-reference §2.2).
const (
	BootstrapPath = "/api/v1/agent-daemon/bootstrap"
	WebSocketPath = "/api/v1/agent-daemon/ws"
)

// Bounds of the transport's own operations.
const (
	// RequestTimeout bounds a bootstrap request and a WebSocket handshake.
	RequestTimeout = 10 * time.Second
	// WriteTimeout bounds a frame write whose Send carries no budget (the
	// write limit Core applies to its own frames).
	WriteTimeout = 10 * time.Second
	// errorBodyBytesMax bounds the error body read from a refusal.
	errorBodyBytesMax = 4 << 10
	// bootstrapBytesMax bounds a bootstrap response body.
	bootstrapBytesMax = 64 << 10
)

// Client talks to one Core as one device. The credential travels only in
// the Authorization header: never in a URL, a log line or an error.
type Client struct {
	// CoreURL is Core's base URL (http or https): the one in use.
	CoreURL string
	// CoreURLs, when it lists more than one URL, are the base URLs of
	// the Cores of an active–standby pair, in rotation order: a Link
	// starts at CoreURL (normally the first) and, after every failed
	// attempt and every lost connection, waits its backoff, moves to the
	// next URL and bootstraps there.
	CoreURLs []string
	// DeviceID names the device the credential authenticates.
	DeviceID string
	// Credential is the device's bearer credential.
	Credential string
	// Version is the protocol version offered on the upgrade; empty means
	// wire.Version.
	Version string
	// HTTP carries bootstrap and the upgrade; nil means http.DefaultClient.
	HTTP *http.Client
	// Clock bounds requests; nil means the real clock.
	Clock clock.Clock
}

// Bootstrap is Core's bootstrap answer.
type Bootstrap struct {
	DeviceID         string `json:"device_id"`
	WorkspaceID      string `json:"workspace_id"`
	WSURL            string `json:"ws_url"`
	HeartbeatSeconds int    `json:"heartbeat_seconds"`
	ProtocolVersion  string `json:"protocol_version"`
}

// HeartbeatInterval is the cadence Core asked for (15 s when absent).
func (b Bootstrap) HeartbeatInterval() time.Duration {
	if b.HeartbeatSeconds <= 0 {
		return 15 * time.Second
	}
	return time.Duration(b.HeartbeatSeconds) * time.Second
}

// ErrConfig reports a Client that cannot be used as configured.
var ErrConfig = errors.New("transport: invalid client configuration")

// Validate checks the client's configuration, naming the field.
func (c *Client) Validate() error {
	for _, raw := range append([]string{c.CoreURL}, c.CoreURLs...) {
		u, err := url.Parse(raw)
		switch {
		case raw == "":
			return fmt.Errorf("%w: Core URL is empty", ErrConfig)
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			return fmt.Errorf("%w: Core URL must be an absolute http or https URL", ErrConfig)
		}
	}
	switch {
	case strings.TrimSpace(c.DeviceID) == "":
		return fmt.Errorf("%w: device ID is empty", ErrConfig)
	case strings.TrimSpace(c.Credential) == "":
		return fmt.Errorf("%w: credential is empty", ErrConfig)
	case strings.ContainsAny(c.Credential, "\r\n"):
		return fmt.Errorf("%w: credential contains a line break", ErrConfig)
	}
	return nil
}

func (c *Client) clock() clock.Clock {
	if c.Clock == nil {
		return clock.New()
	}
	return c.Clock
}

func (c *Client) http() *http.Client {
	if c.HTTP == nil {
		return http.DefaultClient
	}
	return c.HTTP
}

func (c *Client) version() string {
	if c.Version == "" {
		return wire.Version
	}
	return c.Version
}

func (c *Client) header() http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+strings.TrimSpace(c.Credential))
	return h
}

// Bootstrap asks Core for the connection parameters.
func (c *Client) Bootstrap(ctx context.Context) (Bootstrap, error) {
	ctx, cancel := c.clock().WithTimeout(ctx, RequestTimeout)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"device_id": c.DeviceID})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.CoreURL, "/")+BootstrapPath, bytes.NewReader(body))
	if err != nil {
		return Bootstrap{}, fmt.Errorf("bootstrap: %w", err)
	}
	req.Header = c.header()
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http().Do(req)
	if err != nil {
		return Bootstrap{}, fmt.Errorf("bootstrap: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Bootstrap{}, refusal("bootstrap", resp, "")
	}
	var b Bootstrap
	if err := json.NewDecoder(io.LimitReader(resp.Body, bootstrapBytesMax)).Decode(&b); err != nil {
		return Bootstrap{}, fmt.Errorf("bootstrap: undecodable answer: %w", err)
	}
	if b.DeviceID != "" && b.DeviceID != c.DeviceID {
		return Bootstrap{}, &PermanentError{Cause: errors.New("bootstrap: Core authenticated another device ID"),
			Fix: "check the device ID and the credential file: they belong to different devices"}
	}
	return b, nil
}

// refusal reads Core's error body of a refused request.
func refusal(op string, resp *http.Response, version string) *HTTPError {
	e := &HTTPError{Op: op, Status: resp.StatusCode, Version: version}
	if resp.Body != nil {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyBytesMax))
		var body struct {
			Error  string `json:"error"`
			Detail string `json:"detail"`
		}
		if json.Unmarshal(raw, &body) == nil {
			e.Code, e.Detail = body.Error, body.Detail
		}
		e.PlainToTLS = resp.StatusCode == http.StatusBadRequest && bytes.Contains(raw, []byte(plainToTLSBody))
	}
	return e
}

// plainToTLSBody is what Go's TLS listener answers a plain HTTP request
// with (HTTP 400, text).
const plainToTLSBody = "Client sent an HTTP request to an HTTPS server"

// URL returns the WebSocket URL to dial: the bootstrap's ws_url when
// given, else the Core URL's, with device_id and version set.
func (c *Client) URL(b Bootstrap) (string, error) {
	raw := b.WSURL
	if raw == "" {
		raw = strings.TrimSuffix(c.CoreURL, "/") + WebSocketPath
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("connect: unusable WebSocket URL from bootstrap")
	}
	if core, err := url.Parse(c.CoreURL); err == nil && core.Scheme == "https" && (u.Scheme == "ws" || u.Scheme == "http") {
		return "", &PermanentError{Cause: fmt.Errorf("connect: Core's bootstrap named a %s:// WebSocket URL, but the Core URL is https", u.Scheme),
			Fix: "the credential would travel unencrypted; set Core's -public-url to its https:// URL so that ws_url is wss://"}
	}
	q := u.Query()
	q.Set("device_id", c.DeviceID)
	q.Set("version", c.version())
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Dial opens the protocol connection. The frame read limit is
// wire.FrameBytesMax.
func (c *Client) Dial(ctx context.Context, b Bootstrap) (*websocket.Conn, error) {
	u, err := c.URL(b)
	if err != nil {
		return nil, err
	}
	dctx, cancel := c.clock().WithTimeout(ctx, RequestTimeout)
	defer cancel()
	ws, resp, err := websocket.Dial(dctx, u, &websocket.DialOptions{HTTPClient: c.http(), HTTPHeader: c.header()})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, refusal("connect", resp, c.version())
		}
		return nil, fmt.Errorf("connect: %w", err)
	}
	ws.SetReadLimit(wire.FrameBytesMax)
	return ws, nil
}
