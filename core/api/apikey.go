package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/turnstile-sim/turnstile/core/store"
)

// API keys of /v1: Core issues them (turnstile core key add), keeps only
// the SHA-256 of each secret as a resource record of kind KeyKind, and
// refuses a revoked key from the moment its record says so (the records
// are read from the store on every check, so a key revoked by another
// process on the same data directory is refused at once).

// KeyKind is the resource kind of API key records.
const KeyKind = "api_key"

// KeySecretPrefix starts every API key secret, so a leaked key is
// recognisable (and redacted in Core's logs).
const KeySecretPrefix = "tsk_"

// KeyNameBytesMax bounds a key's name.
const KeyNameBytesMax = 64

// Errors of the API key records. Nothing is written when one is returned.
var (
	ErrUnknownKey     = errors.New("unknown API key")
	ErrKeyRevoked     = errors.New("API key already revoked")
	ErrInvalidKeyName = errors.New("invalid API key name")
	ErrBadKeyRecord   = errors.New("stored API key record is invalid")
)

// APIKey is an issued key, without its secret: its ID (derived from the
// secret's SHA-256), its name, the SHA-256 and the times it was created
// and revoked (zero while it is active).
type APIKey struct {
	ID        string
	Name      string
	Hash      [32]byte
	CreatedAt time.Time
	RevokedAt time.Time
}

// Revoked reports whether the key was revoked.
func (k APIKey) Revoked() bool { return !k.RevokedAt.IsZero() }

// keyRecord is the stored form of an APIKey.
type keyRecord struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	SHA256    string `json:"sha256"`
	CreatedAt string `json:"created_at"`
	RevokedAt string `json:"revoked_at,omitempty"`
}

// Keys issues, lists, revokes and verifies API keys over a resource
// store. It is the KeyVerifier of /v1 in a running Core.
type Keys struct {
	res ResourceStore
	mu  sync.Mutex // orders revocations of one process
}

// NewKeys returns the key records of res.
func NewKeys(res ResourceStore) *Keys { return &Keys{res: res} }

// keyID is the record ID of a secret's hash.
func keyID(hash [32]byte) string { return "key_" + hex.EncodeToString(hash[:12]) }

// CheckKeyName answers ErrInvalidKeyName for a name Add refuses: blank,
// over KeyNameBytesMax bytes, not UTF-8, or with a control character.
func CheckKeyName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("%w: empty", ErrInvalidKeyName)
	case len(name) > KeyNameBytesMax:
		return fmt.Errorf("%w: %d bytes, at most %d", ErrInvalidKeyName, len(name), KeyNameBytesMax)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: not UTF-8", ErrInvalidKeyName)
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("%w: control character", ErrInvalidKeyName)
	}
	return nil
}

// Add issues a key named name: it returns the secret (256 random bits
// after KeySecretPrefix), which is shown once and never stored, and the
// record, which keeps only the secret's SHA-256.
func (k *Keys) Add(ctx context.Context, name string, now time.Time) (string, APIKey, error) {
	if err := CheckKeyName(name); err != nil {
		return "", APIKey{}, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", APIKey{}, err
	}
	secret := KeySecretPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	key := APIKey{Name: name, Hash: sha256.Sum256([]byte(secret)), CreatedAt: now.UTC()}
	key.ID = keyID(key.Hash)
	if err := k.put(ctx, key); err != nil {
		return "", APIKey{}, err
	}
	return secret, key, nil
}

func (k *Keys) put(ctx context.Context, key APIKey) error {
	rec := keyRecord{ID: key.ID, Name: key.Name, SHA256: hex.EncodeToString(key.Hash[:]),
		CreatedAt: key.CreatedAt.Format(time.RFC3339Nano)}
	if key.Revoked() {
		rec.RevokedAt = key.RevokedAt.Format(time.RFC3339Nano)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return k.res.PutResource(ctx, KeyKind, key.ID, b)
}

func decodeKey(id string, doc []byte) (APIKey, error) {
	var rec keyRecord
	if err := json.Unmarshal(doc, &rec); err != nil {
		return APIKey{}, fmt.Errorf("%w: %s: %v", ErrBadKeyRecord, id, err)
	}
	h, err := hex.DecodeString(rec.SHA256)
	if err != nil || len(h) != 32 || rec.ID != id {
		return APIKey{}, fmt.Errorf("%w: %s: hash or ID", ErrBadKeyRecord, id)
	}
	key := APIKey{ID: rec.ID, Name: rec.Name}
	copy(key.Hash[:], h)
	if key.CreatedAt, err = time.Parse(time.RFC3339Nano, rec.CreatedAt); err != nil {
		return APIKey{}, fmt.Errorf("%w: %s: created_at: %v", ErrBadKeyRecord, id, err)
	}
	if rec.RevokedAt != "" {
		if key.RevokedAt, err = time.Parse(time.RFC3339Nano, rec.RevokedAt); err != nil {
			return APIKey{}, fmt.Errorf("%w: %s: revoked_at: %v", ErrBadKeyRecord, id, err)
		}
	}
	return key, nil
}

// Get returns key id; ok is false when there is none.
func (k *Keys) Get(ctx context.Context, id string) (APIKey, bool, error) {
	if id == "" {
		return APIKey{}, false, nil
	}
	doc, ok, err := k.res.GetResource(ctx, KeyKind, id)
	if err != nil || !ok {
		return APIKey{}, false, err
	}
	key, err := decodeKey(id, doc)
	return key, err == nil, err
}

// List returns every key in creation order.
func (k *Keys) List(ctx context.Context) ([]APIKey, error) {
	var out []APIKey
	err := allResources(ctx, k.res, KeyKind, func(r store.Resource) error {
		key, err := decodeKey(r.ID, r.Doc)
		if err == nil {
			out = append(out, key)
		}
		return err
	})
	return out, err
}

// Revoke marks key id revoked at now: ErrUnknownKey if there is no such
// key, ErrKeyRevoked if it already is (its first revocation time stays).
func (k *Keys) Revoke(ctx context.Context, id string, now time.Time) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	key, ok, err := k.Get(ctx, id)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("%w: %q", ErrUnknownKey, id)
	case key.Revoked():
		return fmt.Errorf("%w: %q since %s", ErrKeyRevoked, id, key.RevokedAt.Format(time.RFC3339))
	}
	key.RevokedAt = now.UTC()
	return k.put(ctx, key)
}

// VerifyKey accepts the secret of an issued key that is not revoked and
// returns its ID; ok is false for any other secret. err is a failure to
// read the records.
func (k *Keys) VerifyKey(ctx context.Context, secret string) (string, bool, error) {
	if !strings.HasPrefix(secret, KeySecretPrefix) {
		return "", false, nil
	}
	hash := sha256.Sum256([]byte(secret))
	key, ok, err := k.Get(ctx, keyID(hash))
	if err != nil || !ok {
		return "", false, err
	}
	if subtle.ConstantTimeCompare(key.Hash[:], hash[:]) != 1 || key.Revoked() {
		return "", false, nil
	}
	return key.ID, true, nil
}

// allResources calls f on every record of kind, in creation order.
func allResources(ctx context.Context, res ResourceStore, kind string, f func(store.Resource) error) error {
	after := ""
	for {
		page, err := res.ListResources(ctx, store.ResourceQuery{Kind: kind, After: after, Limit: store.ResourceLimitMax})
		if err != nil {
			return err
		}
		for _, r := range page.Items {
			if err := f(r); err != nil {
				return err
			}
		}
		if !page.HasMore || len(page.Items) == 0 {
			return nil
		}
		after = page.Items[len(page.Items)-1].ID
	}
}
