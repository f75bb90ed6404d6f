package world

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/wire"
)

// encodeDaemonFrame is how a daemon's shell encodes a frame it sends. An
// `error` run event goes out with the engine's own code and status, as a
// Runtime forwards them: wire-reference §6.3 leaves their classification
// to Core's decoder, while wire's encoder accepts only the classified
// form. Such a frame is encoded without code and status, which are then
// written into its payload as the engine gave them.
func (u *universe) encodeDaemonFrame(f wire.Frame) ([]byte, error) {
	e, ok := f.Payload.(wire.RunError)
	if !ok || e.Validate() == nil {
		return u.encodeSent(f)
	}
	bare := f
	bare.Payload = wire.RunError{Error: e.Error}
	b, err := wire.EncodeUnverified(bare)
	if err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(b, []byte("}}")) {
		return nil, errEngineErrorLayout
	}
	var extra []byte
	if e.Code != "" {
		code, _ := json.Marshal(e.Code)
		extra = append(append(extra, `,"code":`...), code...)
	}
	if e.HTTPStatus != 0 {
		extra = append(append(extra, `,"http_status":`...), strconv.Itoa(e.HTTPStatus)...)
	}
	raw := make([]byte, 0, len(b)+len(extra))
	raw = append(append(append(raw, b[:len(b)-2]...), extra...), "}}"...)
	if _, err := u.decodeSent(raw); err != nil {
		delete(u.tapped, &raw[0])
		return nil, err
	}
	return raw, nil
}

var errEngineErrorLayout = errors.New("error frame: payload is not the envelope's last member")

// engineErrorRecorded tells the ledger what engine failure Core's durable
// record of a Turn holds, when it first notes an error or its code or
// status changes.
func (u *universe) engineErrorRecorded(at int64, old, r core.TurnRecord) {
	if !r.ErrorSeen {
		return
	}
	if old.ErrorSeen && old.EngineErrorCode == r.EngineErrorCode && old.EngineHTTPStatus == r.EngineHTTPStatus {
		return
	}
	u.led.EngineErrorRecorded(at, r.RunID, r.EngineErrorCode, r.EngineHTTPStatus)
	u.count("EngineErrorRecorded")
}
