package api

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// The vault key encrypts the secrets of Vault credentials at rest with
// AES-256-GCM. Its file (turnstile core -vault-key FILE) holds the 32-byte
// key as 64 hex digits (openssl rand -hex 32); surrounding whitespace is
// ignored.

// VaultKeyHexDigits is the length of a vault key file's content.
const VaultKeyHexDigits = 64

// Errors of LoadVaultKey and of opening a sealed secret.
var (
	ErrVaultKeyMissing    = errors.New("vault key file does not exist")
	ErrVaultKeyUnreadable = errors.New("vault key file cannot be read")
	ErrVaultKeyShort      = errors.New("vault key file is too short: it must hold 64 hex digits (32 bytes)")
	ErrVaultKeyFormat     = errors.New("vault key file must hold exactly 64 hex digits (32 bytes)")
	// ErrVaultKeyMismatch: a stored secret was sealed under another vault
	// key, or its ciphertext is damaged.
	ErrVaultKeyMismatch = errors.New("stored secret does not open with this vault key")
)

// VaultKey seals and opens credential secrets.
type VaultKey struct {
	aead cipher.AEAD
	id   string // names the key in sealed records, never derived reversibly
}

// LoadVaultKey reads a vault key file.
func LoadVaultKey(path string) (*VaultKey, error) {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: %s", ErrVaultKeyMissing, path)
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v", ErrVaultKeyUnreadable, path, errors.Unwrap(err))
	}
	text := strings.TrimSpace(string(b))
	notHex := strings.IndexFunc(text, func(r rune) bool {
		return (r < '0' || r > '9') && (r < 'a' || r > 'f') && (r < 'A' || r > 'F')
	}) >= 0
	switch {
	case notHex:
		return nil, fmt.Errorf("%w: %s holds something other than hex digits", ErrVaultKeyFormat, path)
	case len(text) < VaultKeyHexDigits:
		return nil, fmt.Errorf("%w: %s holds %d hex digits", ErrVaultKeyShort, path, len(text))
	case len(text) > VaultKeyHexDigits:
		return nil, fmt.Errorf("%w: %s holds %d hex digits", ErrVaultKeyFormat, path, len(text))
	}
	raw, err := hex.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrVaultKeyFormat, path, err)
	}
	return NewVaultKey(raw)
}

// NewVaultKey returns the vault key of 32 raw bytes.
func NewVaultKey(raw []byte) (*VaultKey, error) {
	if len(raw) != 32 {
		return nil, fmt.Errorf("%w: %d bytes", ErrVaultKeyFormat, len(raw))
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte("turnstile vault key id\x00"), raw...))
	return &VaultKey{aead: aead, id: hex.EncodeToString(sum[:8])}, nil
}

// ID names the key without revealing it.
func (k *VaultKey) ID() string { return k.id }

// seal encrypts plain bound to aad: base64(nonce || ciphertext).
func (k *VaultKey) seal(plain, aad []byte) (string, error) {
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plain)+k.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(k.aead.Seal(nonce, nonce, plain, aad)), nil
}

// open decrypts what seal returned for the same aad.
func (k *VaultKey) open(sealed string, aad []byte) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(b) < k.aead.NonceSize()+k.aead.Overhead() {
		return nil, fmt.Errorf("%w: malformed ciphertext", ErrVaultKeyMismatch)
	}
	n := k.aead.NonceSize()
	plain, err := k.aead.Open(nil, b[:n], b[n:], aad)
	if err != nil {
		return nil, ErrVaultKeyMismatch
	}
	return plain, nil
}
