package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

// Vaults and Credentials (/v1/vaults, /v1/vaults/{vault}/credentials):
// write-only secrets. A Vault holds no secret and is kept as it is
// answered; a Credential's secret is sealed with the VaultKey
// (AES-256-GCM, bound to the vault and credential IDs) and stored only in
// that form. No route answers a secret, no error message names one, and
// Core logs none: inside Core a secret is a Secret, which prints as
// [redacted].

// Resource kinds of the vault records.
const (
	VaultKind       = "vault"
	CredentialKind  = "vault_credential"
	providerKeyKind = "provider_key"
)

// Error codes of the vault routes.
const (
	CodeUnknownVault         = "unknown_vault"
	CodeUnknownCredential    = "unknown_credential"
	CodeVaultKeyUnconfigured = "vault_key_unconfigured"
)

// Limits of names and metadata (the SDK's documented bounds).
const (
	VaultNameBytesMax     = 256
	MetadataPairsMax      = 16
	MetadataKeyCharsMax   = 64
	MetadataValueCharsMax = 512
	AllowedHostsMax       = 16
)

// ErrVaultKeyUnconfigured: a credential call on a Core started without
// -vault-key.
var ErrVaultKeyUnconfigured = errors.New("Core has no vault key: start turnstile core with -vault-key FILE to store credentials")

// Secret is a credential secret inside Core. It never prints, marshals or
// logs its value; Reveal returns it for the one place that sends it (an
// MCP server's Authorization header, a model provider request).
type Secret struct{ v string }

// Reveal returns the secret's value.
func (s Secret) Reveal() string { return s.v }

// String is "[redacted]".
func (s Secret) String() string { return "[redacted]" }

// GoString is "[redacted]".
func (s Secret) GoString() string { return "[redacted]" }

// LogValue is "[redacted]".
func (s Secret) LogValue() slog.Value { return slog.StringValue("[redacted]") }

// MarshalJSON is "[redacted]".
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"[redacted]"`), nil }

// VaultObject is a Vault as answered (and stored).
type VaultObject struct {
	ID        string            `json:"id"`
	CreatedAt int64             `json:"created_at"`
	Metadata  map[string]string `json:"metadata"`
	Name      *string           `json:"name"`
	Object    string            `json:"object"`
}

// CredentialObject is a Credential as answered: metadata only.
type CredentialObject struct {
	ID        string            `json:"id"`
	Auth      CredentialAuth    `json:"auth"`
	CreatedAt int64             `json:"created_at"`
	Metadata  map[string]string `json:"metadata"`
	Name      string            `json:"name"`
	Object    string            `json:"object"`
	UpdatedAt int64             `json:"updated_at"`
	VaultID   string            `json:"vault_id"`
}

// Credential auth types.
const (
	AuthStaticBearer        = "static_bearer"
	AuthMCPOAuth            = "mcp_oauth"
	AuthEnvironmentVariable = "environment_variable"
)

// CredentialAuth is a credential's authentication method without its
// secret.
type CredentialAuth struct {
	Type         string      `json:"type"`
	MCPServerURL string      `json:"mcp_server_url,omitempty"`
	ExpiresAt    *string     `json:"expires_at,omitempty"`
	SecretName   string      `json:"secret_name,omitempty"`
	Networking   *Networking `json:"networking,omitempty"`
}

// MarshalJSON answers the members of the type: mcp_oauth always carries
// expires_at and refresh (null: Core keeps no refresh configuration).
func (c CredentialAuth) MarshalJSON() ([]byte, error) {
	switch c.Type {
	case AuthStaticBearer:
		return json.Marshal(map[string]any{"type": c.Type, "mcp_server_url": c.MCPServerURL})
	case AuthMCPOAuth:
		return json.Marshal(map[string]any{"type": c.Type, "mcp_server_url": c.MCPServerURL, "expires_at": c.ExpiresAt, "refresh": nil})
	case AuthEnvironmentVariable:
		return json.Marshal(map[string]any{"type": c.Type, "secret_name": c.SecretName, "networking": c.Networking})
	}
	return nil, fmt.Errorf("credential auth type %q", c.Type)
}

// Networking is where an environment_variable credential may be used.
type Networking struct {
	Type         string   `json:"type"`
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
}

// MarshalJSON answers allowed_hosts only for limited networking.
func (n Networking) MarshalJSON() ([]byte, error) {
	if n.Type == "limited" {
		return json.Marshal(map[string]any{"type": n.Type, "allowed_hosts": n.AllowedHosts})
	}
	return json.Marshal(map[string]any{"type": n.Type})
}

// credentialRecord is the stored form of a credential: the answer, and
// the secret sealed under the vault key named KeyID.
type credentialRecord struct {
	Credential CredentialObject `json:"credential"`
	KeyID      string           `json:"key_id"`
	Sealed     string           `json:"sealed"`
}

// sealedSecret is the plaintext of a sealed record.
type sealedSecret struct {
	Secret string `json:"secret"`
}

// Vaults keeps vaults and credentials over a resource store.
type Vaults struct {
	res ResourceStore
	key *VaultKey  // nil: credentials are refused
	mu  sync.Mutex // serialises read-modify-write changes
}

// NewVaults returns the vaults of res; key nil refuses every credential
// call with ErrVaultKeyUnconfigured.
func NewVaults(res ResourceStore, key *VaultKey) *Vaults { return &Vaults{res: res, key: key} }

func credentialAAD(vaultID, credID string) []byte {
	return []byte("turnstile vault credential\x00" + vaultID + "\x00" + credID)
}

func (v *Vaults) getVault(ctx context.Context, id string) (VaultObject, error) {
	var out VaultObject
	doc, ok, err := v.res.GetResource(ctx, VaultKind, id)
	switch {
	case err != nil:
		return out, err
	case !ok:
		return out, notFound(CodeUnknownVault, "vault_id", "no vault %q", id)
	}
	return out, json.Unmarshal(doc, &out)
}

func (v *Vaults) getCredential(ctx context.Context, vaultID, id string) (credentialRecord, error) {
	var rec credentialRecord
	if _, err := v.getVault(ctx, vaultID); err != nil {
		return rec, err
	}
	doc, ok, err := v.res.GetResource(ctx, CredentialKind, id)
	if err != nil {
		return rec, err
	}
	if ok {
		err = json.Unmarshal(doc, &rec)
	}
	if err != nil {
		return rec, err
	}
	if !ok || rec.Credential.VaultID != vaultID {
		return rec, notFound(CodeUnknownCredential, "credential_id", "no credential %q in vault %q", id, vaultID)
	}
	return rec, nil
}

func (v *Vaults) putJSON(ctx context.Context, kind, id string, x any) error {
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	return v.res.PutResource(ctx, kind, id, b)
}

// seal stores secret in rec under the vault key.
func (v *Vaults) seal(rec *credentialRecord, secret string) error {
	plain, err := json.Marshal(sealedSecret{secret})
	if err != nil {
		return err
	}
	sealed, err := v.key.seal(plain, credentialAAD(rec.Credential.VaultID, rec.Credential.ID))
	if err != nil {
		return err
	}
	rec.KeyID, rec.Sealed = v.key.ID(), sealed
	return nil
}

func (v *Vaults) open(rec credentialRecord) (Secret, error) {
	if v.key == nil {
		return Secret{}, ErrVaultKeyUnconfigured
	}
	if rec.KeyID != v.key.ID() {
		return Secret{}, fmt.Errorf("%w: credential %s was sealed under vault key %s, Core holds %s",
			ErrVaultKeyMismatch, rec.Credential.ID, rec.KeyID, v.key.ID())
	}
	plain, err := v.key.open(rec.Sealed, credentialAAD(rec.Credential.VaultID, rec.Credential.ID))
	if err != nil {
		return Secret{}, fmt.Errorf("credential %s: %w", rec.Credential.ID, err)
	}
	var s sealedSecret
	if err := json.Unmarshal(plain, &s); err != nil {
		return Secret{}, fmt.Errorf("credential %s: %w: sealed content", rec.Credential.ID, ErrVaultKeyMismatch)
	}
	return Secret{s.Secret}, nil
}

// CheckVaults answers nil when every ID names a vault, else the
// OpenAI-shaped 404 unknown_vault naming param (a Session's vault_ids).
func (v *Vaults) CheckVaults(ctx context.Context, param string, ids []string) error {
	for _, id := range ids {
		if _, err := v.getVault(ctx, id); err != nil {
			var vb *v1Bad
			if errors.As(err, &vb) {
				vb.param = param
			}
			return err
		}
	}
	return nil
}

// CredentialSecret opens the secret of credential id of vault vaultID.
func (v *Vaults) CredentialSecret(ctx context.Context, vaultID, id string) (Secret, error) {
	if v.key == nil {
		return Secret{}, ErrVaultKeyUnconfigured
	}
	rec, err := v.getCredential(ctx, vaultID, id)
	if err != nil {
		return Secret{}, err
	}
	return v.open(rec)
}

// MCPBearer resolves the bearer token for an MCP server from the vaults
// a Session references, in their order: the first static_bearer or
// mcp_oauth credential whose mcp_server_url is serverURL. ok is false when
// none matches.
func (v *Vaults) MCPBearer(ctx context.Context, vaultIDs []string, serverURL string) (Secret, bool, error) {
	rec, ok, err := v.find(ctx, vaultIDs, func(c CredentialObject) bool {
		return (c.Auth.Type == AuthStaticBearer || c.Auth.Type == AuthMCPOAuth) && c.Auth.MCPServerURL == serverURL
	})
	if err != nil || !ok {
		return Secret{}, false, err
	}
	s, err := v.open(rec)
	return s, err == nil, err
}

// EnvironmentSecret resolves the environment_variable credential named
// secretName from the vaults a Session references, in their order, if its
// networking allows host. ok is false when none matches.
func (v *Vaults) EnvironmentSecret(ctx context.Context, vaultIDs []string, secretName, host string) (Secret, bool, error) {
	rec, ok, err := v.find(ctx, vaultIDs, func(c CredentialObject) bool {
		if c.Auth.Type != AuthEnvironmentVariable || c.Auth.SecretName != secretName || c.Auth.Networking == nil {
			return false
		}
		return c.Auth.Networking.Type == "unrestricted" || slices.Contains(c.Auth.Networking.AllowedHosts, strings.ToLower(host))
	})
	if err != nil || !ok {
		return Secret{}, false, err
	}
	s, err := v.open(rec)
	return s, err == nil, err
}

func (v *Vaults) find(ctx context.Context, vaultIDs []string, match func(CredentialObject) bool) (credentialRecord, bool, error) {
	if v.key == nil {
		return credentialRecord{}, false, ErrVaultKeyUnconfigured
	}
	if err := v.CheckVaults(ctx, "vault_ids", vaultIDs); err != nil {
		return credentialRecord{}, false, err
	}
	var all []credentialRecord
	err := allResources(ctx, v.res, CredentialKind, func(r store.Resource) error {
		var rec credentialRecord
		if err := json.Unmarshal(r.Doc, &rec); err != nil {
			return err
		}
		all = append(all, rec)
		return nil
	})
	if err != nil {
		return credentialRecord{}, false, err
	}
	for _, vid := range vaultIDs {
		for _, rec := range all {
			if rec.Credential.VaultID == vid && match(rec.Credential) {
				return rec, true, nil
			}
		}
	}
	return credentialRecord{}, false, nil
}

// providerKeyRecord is the stored form of an Agent's model provider key.
type providerKeyRecord struct {
	ID      string `json:"id"`
	AgentID string `json:"agent_id"`
	KeyID   string `json:"key_id"`
	Sealed  string `json:"sealed"`
}

func providerKeyAAD(id, agentID string) []byte {
	return []byte("turnstile model provider key\x00" + id + "\x00" + agentID)
}

// StoreProviderKey seals an Agent's model provider key (ProviderKeyStore)
// and returns its reference, for ProviderKey.
func (v *Vaults) StoreProviderKey(ctx context.Context, agentID, secret string) (string, error) {
	if v.key == nil {
		return "", badParam(CodeNotSupported, "x_agents_core.model_provider.api_key", "%v", ErrVaultKeyUnconfigured)
	}
	id := newID("pkey")
	plain, err := json.Marshal(sealedSecret{secret})
	if err != nil {
		return "", err
	}
	sealed, err := v.key.seal(plain, providerKeyAAD(id, agentID))
	if err != nil {
		return "", err
	}
	return id, v.putJSON(ctx, providerKeyKind, id, providerKeyRecord{ID: id, AgentID: agentID, KeyID: v.key.ID(), Sealed: sealed})
}

// ProviderKey opens the model provider key StoreProviderKey returned ref
// for.
func (v *Vaults) ProviderKey(ctx context.Context, ref string) (Secret, error) {
	if v.key == nil {
		return Secret{}, ErrVaultKeyUnconfigured
	}
	doc, ok, err := v.res.GetResource(ctx, providerKeyKind, ref)
	if err != nil {
		return Secret{}, err
	}
	if !ok {
		return Secret{}, fmt.Errorf("no model provider key %q", ref)
	}
	var rec providerKeyRecord
	if err := json.Unmarshal(doc, &rec); err != nil {
		return Secret{}, err
	}
	if rec.KeyID != v.key.ID() {
		return Secret{}, fmt.Errorf("%w: model provider key %s was sealed under vault key %s", ErrVaultKeyMismatch, ref, rec.KeyID)
	}
	plain, err := v.key.open(rec.Sealed, providerKeyAAD(rec.ID, rec.AgentID))
	if err != nil {
		return Secret{}, fmt.Errorf("model provider key %s: %w", ref, err)
	}
	var s sealedSecret
	if err := json.Unmarshal(plain, &s); err != nil {
		return Secret{}, fmt.Errorf("model provider key %s: %w", ref, ErrVaultKeyMismatch)
	}
	return Secret{s.Secret}, nil
}

// DeleteProviderKey removes a model provider key (its Agent was deleted
// or given another key).
func (v *Vaults) DeleteProviderKey(ctx context.Context, ref string) error {
	_, err := v.res.DeleteResource(ctx, providerKeyKind, ref)
	return err
}

// ----- validation -----

// checkName trims a name and checks it holds 1..VaultNameBytesMax bytes.
func checkName(param, name string) (string, error) {
	t := strings.TrimSpace(name)
	if t == "" || len(t) > VaultNameBytesMax || !utf8.ValidString(t) {
		return "", badParam(CodeInvalidValue, param, "%s must hold 1 to %d UTF-8 bytes after trimming", param, VaultNameBytesMax)
	}
	return t, nil
}

// checkVaultMetadata checks the SDK's metadata bounds.
func checkVaultMetadata(param string, m map[string]string) error {
	if len(m) > MetadataPairsMax {
		return badParam(CodeInvalidValue, param, "%s holds %d pairs, at most %d", param, len(m), MetadataPairsMax)
	}
	for k, val := range m {
		if n := utf8.RuneCountInString(k); n < 1 || n > MetadataKeyCharsMax {
			return badParam(CodeInvalidValue, param, "%s keys must have 1 to %d characters", param, MetadataKeyCharsMax)
		}
		if utf8.RuneCountInString(val) > MetadataValueCharsMax {
			return badParam(CodeInvalidValue, param, "%s values must have at most %d characters", param, MetadataValueCharsMax)
		}
	}
	return nil
}

// checkMCPServerURL: an absolute HTTPS URL; plain HTTP only to a loopback
// host (a local MCP server).
func checkMCPServerURL(param, s string) error {
	u, err := url.Parse(s)
	if err == nil && u.Host != "" && u.User == nil && (u.Scheme == "https" || u.Scheme == "http" && isLoopback(u.Hostname())) {
		return nil
	}
	return badParam(CodeInvalidValue, param, "%s must be an absolute https URL (http only to a loopback host)", param)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

var secretNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reservedSecretNames are the proxy and certificate variables a
// credential may not take.
var reservedSecretNames = []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE",
	"SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"}

func checkSecretName(param, s string) error {
	if !secretNamePattern.MatchString(s) {
		return badParam(CodeInvalidValue, param, "%s must be ASCII letters, digits and underscores, starting with a letter or underscore", param)
	}
	if strings.HasPrefix(s, "CODEX_") || slices.Contains(reservedSecretNames, strings.ToUpper(s)) {
		return badParam(CodeInvalidValue, param, "%s %q is reserved", param, s)
	}
	return nil
}

// checkSecret: a secret is non-empty; an environment variable's also
// holds no carriage return, newline or NUL. The message never quotes it.
func checkSecret(param, s string, envVar bool) error {
	if s == "" {
		return badParam(CodeInvalidValue, param, "%s must not be empty", param)
	}
	if envVar && strings.ContainsAny(s, "\r\n\x00") {
		return badParam(CodeInvalidValue, param, "%s must not contain carriage returns, newlines or NUL bytes", param)
	}
	return nil
}

var hostPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

func checkNetworking(param string, n *Networking) error {
	if n == nil {
		return badParam(CodeInvalidValue, param, "%s is required", param)
	}
	switch n.Type {
	case "unrestricted":
		if n.AllowedHosts != nil {
			return badParam(CodeUnknownField, param+".allowed_hosts", "allowed_hosts is only for limited networking")
		}
		return nil
	case "limited":
	default:
		return badParam(CodeInvalidValue, param+".type", "%s.type must be unrestricted or limited", param)
	}
	if len(n.AllowedHosts) < 1 || len(n.AllowedHosts) > AllowedHostsMax {
		return badParam(CodeInvalidValue, param+".allowed_hosts", "allowed_hosts must list 1 to %d hosts", AllowedHostsMax)
	}
	seen := map[string]bool{}
	for i, h := range n.AllowedHosts {
		h = strings.ToLower(h)
		ip := net.ParseIP(h)
		if (ip == nil && !hostPattern.MatchString(h)) || (ip != nil && ip.To4() == nil) || seen[h] {
			return badParam(CodeInvalidValue, param+".allowed_hosts", "allowed_hosts[%d] must be a distinct hostname or IPv4 address without scheme, path, port or wildcard", i)
		}
		seen[h] = true
		n.AllowedHosts[i] = h
	}
	return nil
}

// decodeMember decodes raw (a member named param) strictly into v; its
// refusals name the nested member.
func decodeMember(param string, raw json.RawMessage, v any) error {
	err := decodeStrict(raw, v)
	var br *badRequest
	if errors.As(err, &br) {
		sub := unknownFieldParam(br)
		if sub != "" {
			sub = param + "." + sub
		} else {
			sub = param
		}
		return badParam(br.code, sub, "%s: %s", param, br.detail)
	}
	return err
}

// authType reads the type member of an auth union.
func authType(raw json.RawMessage) (string, error) {
	var t struct {
		Type *string `json:"type"`
	}
	if len(raw) == 0 || string(raw) == "null" {
		return "", badParam(CodeInvalidValue, "auth", "auth is required")
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", badParam(CodeBadJSON, "auth", "auth must be an object with a string type")
	}
	if t.Type == nil {
		return "", badParam(CodeInvalidValue, "auth.type", "auth.type is required")
	}
	switch *t.Type {
	case AuthStaticBearer, AuthMCPOAuth, AuthEnvironmentVariable:
		return *t.Type, nil
	}
	return "", badParam(CodeInvalidValue, "auth.type", "auth.type must be static_bearer, mcp_oauth or environment_variable")
}

func checkExpiresAt(raw json.RawMessage) (*string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, badParam(CodeBadJSON, "auth.expires_at", "auth.expires_at must be a string or null")
	}
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		return nil, badParam(CodeInvalidValue, "auth.expires_at", "auth.expires_at must be an RFC 3339 timestamp")
	}
	return &s, nil
}

func refuseRefresh(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return badParam(CodeNotSupported, "auth.refresh", "Core does not refresh OAuth tokens: store the access token without refresh, and rotate it with an update")
}

// parseAuthCreate reads a create's auth: the public auth and the secret.
func parseAuthCreate(raw json.RawMessage) (CredentialAuth, string, error) {
	typ, err := authType(raw)
	if err != nil {
		return CredentialAuth{}, "", err
	}
	switch typ {
	case AuthStaticBearer:
		var p struct {
			Type         string  `json:"type"`
			Token        *string `json:"token"`
			MCPServerURL *string `json:"mcp_server_url"`
		}
		if err := decodeMember("auth", raw, &p); err != nil {
			return CredentialAuth{}, "", err
		}
		if p.MCPServerURL == nil {
			return CredentialAuth{}, "", badParam(CodeInvalidValue, "auth.mcp_server_url", "auth.mcp_server_url is required")
		}
		if err := checkMCPServerURL("auth.mcp_server_url", *p.MCPServerURL); err != nil {
			return CredentialAuth{}, "", err
		}
		if p.Token == nil {
			return CredentialAuth{}, "", badParam(CodeInvalidValue, "auth.token", "auth.token is required")
		}
		if err := checkSecret("auth.token", *p.Token, false); err != nil {
			return CredentialAuth{}, "", err
		}
		return CredentialAuth{Type: typ, MCPServerURL: *p.MCPServerURL}, *p.Token, nil
	case AuthMCPOAuth:
		var p struct {
			Type         string          `json:"type"`
			AccessToken  *string         `json:"access_token"`
			MCPServerURL *string         `json:"mcp_server_url"`
			ExpiresAt    json.RawMessage `json:"expires_at"`
			Refresh      json.RawMessage `json:"refresh"`
		}
		if err := decodeMember("auth", raw, &p); err != nil {
			return CredentialAuth{}, "", err
		}
		if p.MCPServerURL == nil {
			return CredentialAuth{}, "", badParam(CodeInvalidValue, "auth.mcp_server_url", "auth.mcp_server_url is required")
		}
		if err := checkMCPServerURL("auth.mcp_server_url", *p.MCPServerURL); err != nil {
			return CredentialAuth{}, "", err
		}
		if p.AccessToken == nil {
			return CredentialAuth{}, "", badParam(CodeInvalidValue, "auth.access_token", "auth.access_token is required")
		}
		if err := checkSecret("auth.access_token", *p.AccessToken, false); err != nil {
			return CredentialAuth{}, "", err
		}
		exp, err := checkExpiresAt(p.ExpiresAt)
		if err == nil {
			err = refuseRefresh(p.Refresh)
		}
		if err != nil {
			return CredentialAuth{}, "", err
		}
		return CredentialAuth{Type: typ, MCPServerURL: *p.MCPServerURL, ExpiresAt: exp}, *p.AccessToken, nil
	default: // AuthEnvironmentVariable
		var p struct {
			Type        string          `json:"type"`
			Networking  json.RawMessage `json:"networking"`
			SecretName  *string         `json:"secret_name"`
			SecretValue *string         `json:"secret_value"`
		}
		if err := decodeMember("auth", raw, &p); err != nil {
			return CredentialAuth{}, "", err
		}
		var n *Networking
		if len(p.Networking) > 0 && string(p.Networking) != "null" {
			n = &Networking{}
			if err := decodeMember("auth.networking", p.Networking, n); err != nil {
				return CredentialAuth{}, "", err
			}
		}
		if err := checkNetworking("auth.networking", n); err != nil {
			return CredentialAuth{}, "", err
		}
		if p.SecretName == nil {
			return CredentialAuth{}, "", badParam(CodeInvalidValue, "auth.secret_name", "auth.secret_name is required")
		}
		if err := checkSecretName("auth.secret_name", *p.SecretName); err != nil {
			return CredentialAuth{}, "", err
		}
		if p.SecretValue == nil {
			return CredentialAuth{}, "", badParam(CodeInvalidValue, "auth.secret_value", "auth.secret_value is required")
		}
		if err := checkSecret("auth.secret_value", *p.SecretValue, true); err != nil {
			return CredentialAuth{}, "", err
		}
		return CredentialAuth{Type: typ, SecretName: *p.SecretName, Networking: n}, *p.SecretValue, nil
	}
}

// applyAuthRotate applies an update's auth to cur: the new public auth,
// and the new secret ("" keeps the stored one).
func applyAuthRotate(cur CredentialAuth, raw json.RawMessage) (CredentialAuth, string, error) {
	typ, err := authType(raw)
	if err != nil {
		return cur, "", err
	}
	if typ != cur.Type {
		return cur, "", badParam(CodeInvalidValue, "auth.type", "auth.type %s does not match the credential's %s: the method cannot change", typ, cur.Type)
	}
	switch typ {
	case AuthStaticBearer:
		var p struct {
			Type  string  `json:"type"`
			Token *string `json:"token"`
		}
		if err := decodeMember("auth", raw, &p); err != nil {
			return cur, "", err
		}
		if p.Token == nil {
			return cur, "", badParam(CodeInvalidValue, "auth.token", "auth.token is required")
		}
		return cur, *p.Token, checkSecret("auth.token", *p.Token, false)
	case AuthMCPOAuth:
		var p struct {
			Type        string          `json:"type"`
			AccessToken *string         `json:"access_token"`
			ExpiresAt   json.RawMessage `json:"expires_at"`
			Refresh     json.RawMessage `json:"refresh"`
		}
		if err := decodeMember("auth", raw, &p); err != nil {
			return cur, "", err
		}
		if err := refuseRefresh(p.Refresh); err != nil {
			return cur, "", err
		}
		next, secret := cur, ""
		if p.AccessToken != nil {
			if err := checkSecret("auth.access_token", *p.AccessToken, false); err != nil {
				return cur, "", err
			}
			secret, next.ExpiresAt = *p.AccessToken, nil // a new token clears the expiry unless one is given
		}
		if p.ExpiresAt != nil {
			exp, err := checkExpiresAt(p.ExpiresAt)
			if err != nil {
				return cur, "", err
			}
			next.ExpiresAt = exp
		}
		return next, secret, nil
	default: // AuthEnvironmentVariable
		var p struct {
			Type        string  `json:"type"`
			SecretValue *string `json:"secret_value"`
		}
		if err := decodeMember("auth", raw, &p); err != nil {
			return cur, "", err
		}
		if p.SecretValue == nil {
			return cur, "", badParam(CodeInvalidValue, "auth.secret_value", "auth.secret_value is required")
		}
		return cur, *p.SecretValue, checkSecret("auth.secret_value", *p.SecretValue, true)
	}
}

// credentialRef matches a credential ID as newID mints it.
var credentialRef = regexp.MustCompile(`^cred_[0-9a-f]{24}$`)

// IsCredentialRef reports whether an MCP server's bearer token is a
// reference to a Vault credential (its ID) rather than a token.
func IsCredentialRef(s string) bool { return credentialRef.MatchString(s) }

// secretByID opens the secret of credential id, whichever its vault.
func (v *Vaults) secretByID(ctx context.Context, id string) (Secret, error) {
	if v.key == nil {
		return Secret{}, ErrVaultKeyUnconfigured
	}
	doc, ok, err := v.res.GetResource(ctx, CredentialKind, id)
	if err != nil {
		return Secret{}, err
	}
	if !ok {
		return Secret{}, fmt.Errorf("no credential %q", id)
	}
	var rec credentialRecord
	if err := json.Unmarshal(doc, &rec); err != nil {
		return Secret{}, err
	}
	return v.open(rec)
}

// CredentialInVaults answers nil when credential id is in one of the
// vaults a Session references, else the OpenAI-shaped 404 naming param.
func (v *Vaults) CredentialInVaults(ctx context.Context, param, id string, vaultIDs []string) error {
	doc, ok, err := v.res.GetResource(ctx, CredentialKind, id)
	if err != nil {
		return err
	}
	var rec credentialRecord
	if ok {
		if err := json.Unmarshal(doc, &rec); err != nil {
			return err
		}
	}
	if !ok || !slices.Contains(vaultIDs, rec.Credential.VaultID) {
		return notFound(CodeUnknownCredential, param, "no credential %q in the Session's vault_ids", id)
	}
	return nil
}

// FrameSecrets is the server's PrepareFrame: in an execution_prepare, an
// MCP server whose bearer token is a credential reference gets the
// credential's secret, on the wire only (the machine, its store and its
// traces keep the reference). Any other frame passes unchanged. An error
// names the server and credential, never a secret.
func (v *Vaults) FrameSecrets(f wire.Frame) (wire.Frame, error) {
	p, ok := f.Payload.(wire.ExecutionPrepare)
	if !ok || p.Configuration.MCPHTTPServers == nil {
		return f, nil
	}
	servers := *p.Configuration.MCPHTTPServers
	var out []wire.MCPHTTPServer
	for i, s := range servers {
		if !IsCredentialRef(s.BearerToken) {
			continue
		}
		if out == nil {
			out = slices.Clone(servers)
		}
		sec, err := v.secretByID(context.Background(), s.BearerToken)
		if err != nil {
			return f, fmt.Errorf("mcp_http_servers[%d] %q: credential %s: %w", i, s.ServerLabel, s.BearerToken, err)
		}
		out[i].BearerToken = sec.Reveal()
	}
	if out == nil {
		return f, nil
	}
	p.Configuration.MCPHTTPServers = &out
	f.Payload = p
	return f, nil
}
