package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/coder/websocket"

	"github.com/turnstile-sim/turnstile/wire"
)

// Client is one scripted Runtime connection to a real gateway.
type Client struct {
	WS      *websocket.Conn
	Runtime *Runtime
}

// Bootstrap is the bootstrap answer.
type Bootstrap struct {
	DeviceID         string `json:"device_id"`
	WorkspaceID      string `json:"workspace_id"`
	WSURL            string `json:"ws_url"`
	HeartbeatSeconds int    `json:"heartbeat_seconds"`
	ProtocolVersion  string `json:"protocol_version"`
}

// DoBootstrap posts the bootstrap request of device to base.
func DoBootstrap(ctx context.Context, hc *http.Client, base, device, credential string) (Bootstrap, error) {
	body, _ := json.Marshal(map[string]string{"device_id": device})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/agent-daemon/bootstrap", bytes.NewReader(body))
	if err != nil {
		return Bootstrap{}, err
	}
	req.Header.Set("Authorization", "Bearer "+credential)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return Bootstrap{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return Bootstrap{}, fmt.Errorf("scripted: bootstrap: %d %s", resp.StatusCode, b)
	}
	var out Bootstrap
	return out, json.Unmarshal(b, &out)
}

// Dial connects device to wsURL with the protocol version and sends the
// first heartbeat.
func Dial(ctx context.Context, hc *http.Client, wsURL, device, credential string, rt *Runtime) (*Client, error) {
	u := wsURL + "?" + url.Values{"device_id": {device}, "version": {wire.Version}}.Encode()
	ws, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: hc,
		HTTPHeader: http.Header{"Authorization": {"Bearer " + credential}}})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("scripted: dial: %d: %w", resp.StatusCode, err)
		}
		return nil, err
	}
	ws.SetReadLimit(wire.FrameBytesMax)
	c := &Client{WS: ws, Runtime: rt}
	if err := ws.Write(ctx, websocket.MessageText, rt.Heartbeat(0)); err != nil {
		ws.CloseNow()
		return nil, err
	}
	return c, nil
}

// Serve answers Core's frames until the connection ends; it returns the
// read error (the close status tells why).
func (c *Client) Serve(ctx context.Context) error {
	for {
		_, b, err := c.WS.Read(ctx)
		if err != nil {
			return err
		}
		for _, out := range c.Runtime.Respond(b) {
			if err := c.WS.Write(ctx, websocket.MessageText, out); err != nil {
				return err
			}
		}
	}
}
