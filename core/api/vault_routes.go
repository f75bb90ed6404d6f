package api

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/turnstile-sim/turnstile/core/store"
)

// vaultRoutes are the Vaults and Credentials routes (the SDK's
// beta.agents.vaults and beta.agents.vaults.credentials).
func vaultRoutes() []Route {
	return []Route{
		{"POST", "/v1/vaults", (*API).createVault},
		{"GET", "/v1/vaults", (*API).listVaults},
		{"GET", "/v1/vaults/{vault}", (*API).getVault},
		{"POST", "/v1/vaults/{vault}", (*API).updateVault},
		{"DELETE", "/v1/vaults/{vault}", (*API).deleteVault},
		{"POST", "/v1/vaults/{vault}/credentials", (*API).createCredential},
		{"GET", "/v1/vaults/{vault}/credentials", (*API).listCredentials},
		{"GET", "/v1/vaults/{vault}/credentials/{credential}", (*API).getCredential},
		{"POST", "/v1/vaults/{vault}/credentials/{credential}", (*API).updateCredential},
		{"DELETE", "/v1/vaults/{vault}/credentials/{credential}", (*API).deleteCredential},
	}
}

func (a *API) createVault(w http.ResponseWriter, r *http.Request) {
	var p struct {
		Metadata *map[string]string `json:"metadata"`
		Name     *string            `json:"name"`
	}
	if _, err := readV1(w, r, &p, true); err != nil {
		a.failV1Err(w, err)
		return
	}
	v := VaultObject{ID: newID("vault"), CreatedAt: time.Now().Unix(), Metadata: map[string]string{}, Object: "vault"}
	if p.Metadata != nil && *p.Metadata != nil {
		v.Metadata = *p.Metadata
	}
	err := checkVaultMetadata("metadata", v.Metadata)
	if err == nil && p.Name != nil {
		var n string
		n, err = checkName("name", *p.Name)
		v.Name = &n
	}
	if err == nil {
		err = a.vaults.putJSON(r.Context(), VaultKind, v.ID, v)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (a *API) getVault(w http.ResponseWriter, r *http.Request) {
	v, err := a.vaults.getVault(r.Context(), r.PathValue("vault"))
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (a *API) updateVault(w http.ResponseWriter, r *http.Request) {
	var p struct {
		Metadata *map[string]string `json:"metadata"`
		Name     json.RawMessage    `json:"name"`
	}
	if _, err := readV1(w, r, &p, true); err != nil {
		a.failV1Err(w, err)
		return
	}
	a.vaults.mu.Lock()
	defer a.vaults.mu.Unlock()
	v, err := a.vaults.getVault(r.Context(), r.PathValue("vault"))
	if err == nil && p.Metadata != nil {
		m := *p.Metadata
		if m == nil {
			m = map[string]string{}
		}
		if err = checkVaultMetadata("metadata", m); err == nil {
			v.Metadata = m
		}
	}
	if err == nil && p.Name != nil {
		if string(p.Name) == "null" {
			v.Name = nil
		} else {
			var n string
			if json.Unmarshal(p.Name, &n) != nil {
				err = badParam(CodeBadJSON, "name", "name must be a string or null")
			} else if n, err = checkName("name", n); err == nil {
				v.Name = &n
			}
		}
	}
	if err == nil {
		err = a.vaults.putJSON(r.Context(), VaultKind, v.ID, v)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// deleteVault removes the vault and every credential in it.
func (a *API) deleteVault(w http.ResponseWriter, r *http.Request) {
	a.vaults.mu.Lock()
	defer a.vaults.mu.Unlock()
	id := r.PathValue("vault")
	if _, err := a.vaults.getVault(r.Context(), id); err != nil {
		a.failV1Err(w, err)
		return
	}
	var creds []string
	err := allResources(r.Context(), a.res, CredentialKind, func(it store.Resource) error {
		var rec credentialRecord
		if err := json.Unmarshal(it.Doc, &rec); err != nil {
			return err
		}
		if rec.Credential.VaultID == id {
			creds = append(creds, it.ID)
		}
		return nil
	})
	for _, c := range creds {
		if err == nil {
			_, err = a.res.DeleteResource(r.Context(), CredentialKind, c)
		}
	}
	if err == nil {
		_, err = a.res.DeleteResource(r.Context(), VaultKind, id)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, Deleted{ID: id, Object: "vault.deleted", Deleted: true})
}

func (a *API) listVaults(w http.ResponseWriter, r *http.Request) {
	a.listFiltered(w, r, VaultKind, func(doc []byte) (string, map[string]string, any, bool, error) {
		var v VaultObject
		err := json.Unmarshal(doc, &v)
		return v.ID, v.Metadata, v, true, err
	})
}

// needVaultKey refuses a credential call on a Core without a vault key:
// 503 vault_key_unconfigured, which a retry does not change.
func (a *API) needVaultKey(w http.ResponseWriter) bool {
	if a.vaults.key != nil {
		return true
	}
	w.Header().Set("X-Should-Retry", "false")
	failV1(w, http.StatusServiceUnavailable, "", CodeVaultKeyUnconfigured, "", ErrVaultKeyUnconfigured.Error())
	return false
}

func (a *API) createCredential(w http.ResponseWriter, r *http.Request) {
	if !a.needVaultKey(w) {
		return
	}
	var p struct {
		Auth     json.RawMessage    `json:"auth"`
		Name     *string            `json:"name"`
		Metadata *map[string]string `json:"metadata"`
	}
	if _, err := readV1(w, r, &p, false); err != nil {
		a.failV1Err(w, err)
		return
	}
	a.vaults.mu.Lock() // the vault is not deleted between the check and the write
	defer a.vaults.mu.Unlock()
	now := time.Now().Unix()
	rec := credentialRecord{Credential: CredentialObject{ID: newID("cred"), CreatedAt: now, UpdatedAt: now,
		Metadata: map[string]string{}, Object: "vault.credential", VaultID: r.PathValue("vault")}}
	_, err := a.vaults.getVault(r.Context(), rec.Credential.VaultID)
	var secret string
	if err == nil {
		rec.Credential.Auth, secret, err = parseAuthCreate(p.Auth)
	}
	if err == nil {
		if p.Name == nil {
			err = badParam(CodeInvalidValue, "name", "name is required")
		} else {
			rec.Credential.Name, err = checkName("name", *p.Name)
		}
	}
	if err == nil && p.Metadata != nil && *p.Metadata != nil {
		rec.Credential.Metadata = *p.Metadata
		err = checkVaultMetadata("metadata", rec.Credential.Metadata)
	}
	if err == nil {
		err = a.vaults.seal(&rec, secret)
	}
	if err == nil {
		err = a.vaults.putJSON(r.Context(), CredentialKind, rec.Credential.ID, rec)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rec.Credential)
}

func (a *API) getCredential(w http.ResponseWriter, r *http.Request) {
	if !a.needVaultKey(w) {
		return
	}
	rec, err := a.vaults.getCredential(r.Context(), r.PathValue("vault"), r.PathValue("credential"))
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rec.Credential)
}

func (a *API) updateCredential(w http.ResponseWriter, r *http.Request) {
	if !a.needVaultKey(w) {
		return
	}
	var p struct {
		Auth     json.RawMessage    `json:"auth"`
		Metadata *map[string]string `json:"metadata"`
	}
	if _, err := readV1(w, r, &p, true); err != nil {
		a.failV1Err(w, err)
		return
	}
	a.vaults.mu.Lock()
	defer a.vaults.mu.Unlock()
	rec, err := a.vaults.getCredential(r.Context(), r.PathValue("vault"), r.PathValue("credential"))
	secret := ""
	if err == nil && p.Auth != nil {
		rec.Credential.Auth, secret, err = applyAuthRotate(rec.Credential.Auth, p.Auth)
	}
	if err == nil && p.Metadata != nil {
		m := *p.Metadata
		if m == nil {
			m = map[string]string{}
		}
		if err = checkVaultMetadata("metadata", m); err == nil {
			rec.Credential.Metadata = m
		}
	}
	if err == nil && secret != "" {
		err = a.vaults.seal(&rec, secret)
	}
	if err == nil {
		rec.Credential.UpdatedAt = time.Now().Unix()
		err = a.vaults.putJSON(r.Context(), CredentialKind, rec.Credential.ID, rec)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rec.Credential)
}

func (a *API) deleteCredential(w http.ResponseWriter, r *http.Request) {
	if !a.needVaultKey(w) {
		return
	}
	a.vaults.mu.Lock()
	defer a.vaults.mu.Unlock()
	rec, err := a.vaults.getCredential(r.Context(), r.PathValue("vault"), r.PathValue("credential"))
	if err == nil {
		_, err = a.res.DeleteResource(r.Context(), CredentialKind, rec.Credential.ID)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, Deleted{ID: rec.Credential.ID, Object: "vault.credential.deleted", Deleted: true})
}

func (a *API) listCredentials(w http.ResponseWriter, r *http.Request) {
	if !a.needVaultKey(w) {
		return
	}
	vaultID := r.PathValue("vault")
	if _, err := a.vaults.getVault(r.Context(), vaultID); err != nil {
		a.failV1Err(w, err)
		return
	}
	a.listFiltered(w, r, CredentialKind, func(doc []byte) (string, map[string]string, any, bool, error) {
		var rec credentialRecord
		err := json.Unmarshal(doc, &rec)
		return rec.Credential.ID, rec.Credential.Metadata, rec.Credential, rec.Credential.VaultID == vaultID, err
	})
}

// listFiltered answers a page of the records of kind that view keeps,
// with the vault lists' filters: metadata[key]=value (every pair must
// match, up to MetadataPairsMax) and status / status[] (active or
// archived; Core deletes instead of archiving, so every record is
// active). The cursor `after` must name a record the filters keep.
func (a *API) listFiltered(w http.ResponseWriter, r *http.Request, kind string,
	view func(doc []byte) (id string, meta map[string]string, answer any, keep bool, err error)) {
	q := r.URL.Query()
	want := map[string]string{}
	statuses := []string{}
	rest := r.Clone(r.Context())
	rq := rest.URL.Query()
	for name, vs := range q {
		switch {
		case strings.HasPrefix(name, "metadata[") && strings.HasSuffix(name, "]"):
			k := strings.TrimSuffix(strings.TrimPrefix(name, "metadata["), "]")
			if len(vs) != 1 || k == "" || len(k) > MetadataKeyCharsMax || len(vs[0]) > MetadataValueCharsMax {
				a.failV1Err(w, badParam(CodeInvalidValue, "metadata", "metadata[%s] must be given once, with a key of 1 to %d and a value of at most %d characters", k, MetadataKeyCharsMax, MetadataValueCharsMax))
				return
			}
			want[k] = vs[0]
			rq.Del(name)
		case name == "status" || name == "status[]":
			for _, s := range vs {
				if s != "active" && s != "archived" {
					a.failV1Err(w, badParam(CodeInvalidValue, "status", "status must be active or archived"))
					return
				}
			}
			statuses = append(statuses, vs...)
			rq.Del(name)
		}
	}
	if len(want) > MetadataPairsMax {
		a.failV1Err(w, badParam(CodeInvalidValue, "metadata", "at most %d metadata filters", MetadataPairsMax))
		return
	}
	rest.URL.RawQuery = rq.Encode()
	p, err := listParams(rest, true)
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	activeWanted := len(statuses) == 0 || slices.Contains(statuses, "active")
	var ids []string
	var items []any
	err = allResources(r.Context(), a.res, kind, func(it store.Resource) error {
		id, meta, answer, keep, err := view(it.Doc)
		if err != nil || !keep || !activeWanted {
			return err
		}
		for k, v := range want {
			if meta[k] != v {
				return nil
			}
		}
		ids, items = append(ids, id), append(items, answer)
		return nil
	})
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	if p.Desc {
		slices.Reverse(ids)
		slices.Reverse(items)
	}
	start := 0
	if p.After != "" {
		i := slices.Index(ids, p.After)
		if i < 0 {
			a.failV1Err(w, badParam(CodeBadCursor, "after", "after names no object of this list"))
			return
		}
		start = i + 1
	}
	end := min(len(ids), start+p.Limit)
	writeJSON(w, http.StatusOK, newPage(items[start:end], ids[start:end], end < len(ids)))
}
