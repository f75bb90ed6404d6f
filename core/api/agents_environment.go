package api

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/turnstile-sim/turnstile/core"
	"github.com/turnstile-sim/turnstile/core/server"
	"github.com/turnstile-sim/turnstile/core/store"
	"github.com/turnstile-sim/turnstile/wire"
)

// Environments (/v1/agents/environments): the SDK's execution
// environments mapped onto Core's Environment binding. An Environment is
// a record holding Core's binding — the kind (openai_hosted or
// self_hosted) and a canonical UUID environment ID that Sessions bound to
// it carry to the Runtime (local_environment) — and, for openai_hosted,
// the Environment definition (files, skills, plugins, setup commands)
// every connection installs through runtime_prepare before a Session's
// work runs there. Device selection stays Core's: a device whose Runtime
// qualifies the Session's kind. Environment Files are the workspace of
// the latest Session bound to the Environment: a file create is a
// workspace write, the file list a directory read. What Core cannot honour
// is refused by name (400 not_supported): templates, Files API and Skills
// API references, packages, network and desktop settings, environment
// variables, capability directories; Session artifacts are refused too
// (the Runtime protocol reports none).

// EnvironmentRecordKind is the resource kind of Environment records.
const EnvironmentRecordKind = "agent_environment"

// Error codes of the environment routes.
const (
	CodeUnknownEnvironment      = "unknown_environment"
	CodeEnvironmentNotConnected = "environment_not_connected"
	CodeWorkspaceRejected       = "workspace_rejected"
	CodeWorkspaceUnavailable    = "workspace_unavailable"
	CodeWorkspaceUnknown        = "workspace_write_unknown"
)

// WorkspaceRoot is the absolute workspace directory of every Environment.
const WorkspaceRoot = wire.WorkspaceRoot

// EnvironmentInfo is an Environment as answered.
type EnvironmentInfo struct {
	ID      string              `json:"id"`
	Object  string              `json:"object"`
	Type    string              `json:"type"`
	Status  string              `json:"status"`
	Files   []HostedFileJSON    `json:"files"`
	Plugins []HostedPackageJSON `json:"plugins"`
	Skills  []HostedPackageJSON `json:"skills"`
	// XAgentsCore is Core's addition: the binding a Session carries to the
	// Runtime (the environment_id of /core/v1/suspensions too).
	XAgentsCore EnvironmentXJSON `json:"x_agents_core"`
}

// EnvironmentXJSON is Core's addition to an Environment.
type EnvironmentXJSON struct {
	EnvironmentID string `json:"environment_id"`
}

// HostedFileJSON is an installed file without its content.
type HostedFileJSON struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	SizeBytes int64  `json:"size_bytes"`
	Type      string `json:"type"`
}

// HostedPackageJSON is an installed skill or plugin without its archive.
type HostedPackageJSON struct {
	Description string `json:"description"`
	Name        string `json:"name"`
	Type        string `json:"type"`
}

// environmentRecord is the stored Environment: the answer and Core's
// binding.
type environmentRecord struct {
	Info               EnvironmentInfo             `json:"info"`
	CoreID             string                      `json:"core_id"`
	Definition         *core.EnvironmentDefinition `json:"definition,omitempty"`
	VaultIDs           []string                    `json:"vault_ids"`
	WorkspaceDirectory string                      `json:"workspace_directory,omitempty"`
}

// EnvironmentBinding is what a Session freezes from its environment
// parameter: Core's binding (Kind, CoreID, Definition), the vaults an
// Environment was created with, its public ID, and the SDK Environment
// object a Session answers ({"type":"none"} for none). An inline
// environment is recorded by recordBinding once its Session exists.
type EnvironmentBinding struct {
	Kind       core.EnvironmentKind
	CoreID     string
	Definition *core.EnvironmentDefinition
	VaultIDs   []string
	PublicID   string
	Answer     json.RawMessage
	inline     *environmentRecord // to record; nil for none and references
}

func bindingOf(rec environmentRecord, inline bool) EnvironmentBinding {
	b := EnvironmentBinding{Kind: core.EnvironmentKind(rec.Info.Type), CoreID: rec.CoreID, Definition: rec.Definition,
		VaultIDs: rec.VaultIDs, PublicID: rec.Info.ID}
	b.Answer, _ = json.Marshal(environmentAnswer(rec))
	if inline {
		b.inline = &rec
	}
	return b
}

// recordBinding records the Environment of an inline binding (a no-op for
// none and references), so its Files routes and x_agents_core binding
// work; call it once the Session bound to it was created, so that a
// refused Session leaves nothing behind.
func (a *API) recordBinding(ctx context.Context, b EnvironmentBinding) error {
	if b.inline == nil {
		return nil
	}
	return a.putEnvironment(ctx, *b.inline)
}

// newUUID returns a random canonical (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func notSupported(param, format string, args ...any) error {
	return badParam(CodeNotSupported, param, format, args...)
}

func isNullRaw(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// hostedParams is the openai_hosted environment configuration (the
// create body's environment, or a Session's inline environment).
type hostedParams struct {
	Type                  string            `json:"type"`
	EnvironmentID         *string           `json:"environment_id"`
	CapabilityDirectories []string          `json:"capability_directories"`
	Desktop               json.RawMessage   `json:"desktop"`
	Env                   map[string]string `json:"env"`
	EnvironmentTemplateID *string           `json:"environment_template_id"`
	Files                 []json.RawMessage `json:"files"`
	Network               json.RawMessage   `json:"network"`
	Packages              json.RawMessage   `json:"packages"`
	Plugins               []json.RawMessage `json:"plugins"`
	SetupCommands         []json.RawMessage `json:"setup_commands"`
	Skills                []json.RawMessage `json:"skills"`
}

// configured reports whether p carries any configuration beside its type
// and environment_id.
func (p hostedParams) configured() bool {
	return p.CapabilityDirectories != nil || !isNullRaw(p.Desktop) || p.Env != nil || p.EnvironmentTemplateID != nil ||
		p.Files != nil || !isNullRaw(p.Network) || !isNullRaw(p.Packages) || p.Plugins != nil || p.SetupCommands != nil || p.Skills != nil
}

// inlineSource is an inline ZIP archive.
type inlineSource struct {
	Data      string `json:"data"`
	MediaType string `json:"media_type"`
	Type      string `json:"type"`
}

// hostedDefinition maps the openai_hosted configuration p (member param)
// onto a Core Environment definition and the answer's lists; what Core
// cannot honour is refused by name.
func hostedDefinition(param string, p hostedParams, coreID string) (*core.EnvironmentDefinition, EnvironmentInfo, error) {
	info := EnvironmentInfo{Object: "agent.environment", Type: string(core.EnvOpenAIHosted), Status: "ready",
		Files: []HostedFileJSON{}, Plugins: []HostedPackageJSON{}, Skills: []HostedPackageJSON{}}
	switch {
	case p.EnvironmentTemplateID != nil:
		return nil, info, notSupported(param+".environment_template_id", "Core serves no environment templates: give the environment inline")
	case len(p.CapabilityDirectories) > 0:
		return nil, info, notSupported(param+".capability_directories", "Core's Runtimes expose no capability directories")
	case len(p.Env) > 0:
		return nil, info, notSupported(param+".env", "Core sets no environment variables in an Environment")
	case !isNullRaw(p.Network):
		return nil, info, notSupported(param+".network", "Core enforces no network policy on an Environment (setup commands run without network)")
	}
	if !isNullRaw(p.Desktop) {
		var d struct {
			Enabled bool `json:"enabled"`
		}
		if err := decodeMember(param+".desktop", p.Desktop, &d); err != nil {
			return nil, info, err
		}
		if d.Enabled {
			return nil, info, notSupported(param+".desktop.enabled", "Core provisions no desktop")
		}
	}
	if !isNullRaw(p.Packages) {
		var pk struct {
			NPM    []string `json:"npm"`
			Python []string `json:"python"`
			System []string `json:"system"`
		}
		if err := decodeMember(param+".packages", p.Packages, &pk); err != nil {
			return nil, info, err
		}
		if len(pk.NPM)+len(pk.Python)+len(pk.System) > 0 {
			return nil, info, notSupported(param+".packages", "Core installs no packages: use setup_commands")
		}
	}
	def := &core.EnvironmentDefinition{}
	for i, raw := range p.Files {
		f := fmt.Sprintf("%s.files[%d]", param, i)
		var fp struct {
			Type   string  `json:"type"`
			Path   string  `json:"path"`
			Data   *string `json:"data"`
			FileID *string `json:"file_id"`
		}
		if err := decodeMember(f, raw, &fp); err != nil {
			return nil, info, err
		}
		switch {
		case fp.Type == "file_id":
			return nil, info, notSupported(f+".type", "Core has no Files API: give the file inline")
		case fp.Type != "inline":
			return nil, info, badParam(CodeInvalidValue, f+".type", "type must be inline")
		case fp.FileID != nil:
			return nil, info, badParam(CodeUnknownField, f+".file_id", "file_id is only for type file_id")
		case fp.Data == nil:
			return nil, info, badParam(CodeInvalidValue, f+".data", "data is required")
		}
		b, err := base64.StdEncoding.DecodeString(*fp.Data)
		if err != nil {
			return nil, info, badParam(CodeInvalidValue, f+".data", "data is not standard base64")
		}
		def.Files = append(def.Files, core.EnvironmentFile{Path: fp.Path, SHA256: digest(b), Content: b})
		info.Files = append(info.Files, HostedFileJSON{ID: fmt.Sprintf("file_%d", i+1), Path: fp.Path, SizeBytes: int64(len(b)), Type: "inline"})
	}
	for _, list := range []struct {
		name string
		in   []json.RawMessage
		out  *[]core.EnvironmentPackage
		ans  *[]HostedPackageJSON
	}{{"skills", p.Skills, &def.Skills, &info.Skills}, {"plugins", p.Plugins, &def.Plugins, &info.Plugins}} {
		for i, raw := range list.in {
			f := fmt.Sprintf("%s.%s[%d]", param, list.name, i)
			var pp struct {
				Type        string          `json:"type"`
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Source      json.RawMessage `json:"source"`
				SkillID     *string         `json:"skill_id"`
				Version     json.RawMessage `json:"version"`
			}
			if err := decodeMember(f, raw, &pp); err != nil {
				return nil, info, err
			}
			switch {
			case pp.Type == "skill_reference" && list.name == "skills":
				return nil, info, notSupported(f+".type", "Core has no Skills API: give the skill inline")
			case pp.Type != "inline":
				return nil, info, badParam(CodeInvalidValue, f+".type", "type must be inline")
			case pp.SkillID != nil || pp.Version != nil:
				return nil, info, badParam(CodeUnknownField, f+".skill_id", "skill_id and version are only for skill references")
			case isNullRaw(pp.Source):
				return nil, info, badParam(CodeInvalidValue, f+".source", "source is required")
			}
			var src inlineSource
			if err := decodeMember(f+".source", pp.Source, &src); err != nil {
				return nil, info, err
			}
			if src.Type != "base64" || src.MediaType != "application/zip" {
				return nil, info, badParam(CodeInvalidValue, f+".source", "source must be type base64 with media_type application/zip")
			}
			b, err := base64.StdEncoding.DecodeString(src.Data)
			if err != nil {
				return nil, info, badParam(CodeInvalidValue, f+".source.data", "data is not standard base64")
			}
			*list.out = append(*list.out, core.EnvironmentPackage{Name: pp.Name, Description: pp.Description, SHA256: digest(b), Content: b})
			*list.ans = append(*list.ans, HostedPackageJSON{Name: pp.Name, Description: pp.Description, Type: "inline"})
		}
	}
	for i, raw := range p.SetupCommands {
		f := fmt.Sprintf("%s.setup_commands[%d]", param, i)
		var sc struct {
			Command string  `json:"command"`
			Cwd     *string `json:"cwd"`
		}
		if err := decodeMember(f, raw, &sc); err != nil {
			return nil, info, err
		}
		if strings.TrimSpace(sc.Command) == "" {
			return nil, info, badParam(CodeInvalidValue, f+".command", "command is required")
		}
		s := core.EnvironmentSetup{Command: sc.Command}
		if sc.Cwd != nil {
			s.Cwd = *sc.Cwd
		}
		def.Setup = append(def.Setup, s)
	}
	if len(def.Files)+len(def.Skills)+len(def.Plugins)+len(def.Setup) == 0 {
		return nil, info, nil // nothing to install
	}
	return def, info, checkDefinition(param, def, coreID)
}

// checkDefinition applies the limits and the wire validator every
// runtime_prepare begin header passes, so a definition Core would refuse
// at Session creation is refused here.
func checkDefinition(param string, def *core.EnvironmentDefinition, coreID string) error {
	steps := def.Steps()
	total := 0
	for _, s := range steps {
		total += len(s.Body)
	}
	switch {
	case len(steps) > core.EnvironmentStepsMax:
		return badParam(CodeInvalidValue, param, "%d files, skills, plugins and setup commands, at most %d", len(steps), core.EnvironmentStepsMax)
	case total > core.EnvironmentDefinitionBytesMax:
		return badParam(CodeInvalidValue, param, "%d bytes of content, at most %d", total, core.EnvironmentDefinitionBytesMax)
	}
	session := newUUID()
	for i, s := range steps {
		h := s.Header
		h.Step, h.EnvironmentID, h.SessionID, h.Offset, h.Data = wire.StepBegin, coreID, session, 0, nil
		if err := h.Validate(); err != nil {
			return badParam(CodeInvalidValue, param, "item %d (%s): %v", i, h.Action, err)
		}
	}
	return nil
}

// selfHostedParams is a Session's inline self_hosted environment.
type selfHostedParams struct {
	Type                  string   `json:"type"`
	WorkspaceDirectory    *string  `json:"workspace_directory"`
	CapabilityDirectories []string `json:"capability_directories"`
}

// environmentAnswer is the SDK Environment object a Session answers for
// rec.
func environmentAnswer(rec environmentRecord) any {
	if rec.Info.Type == string(core.EnvSelfHosted) {
		return map[string]any{"id": rec.Info.ID, "type": rec.Info.Type, "capability_directories": []string{},
			"workspace_directory": rec.WorkspaceDirectory, "remote_url": "", "x_agents_core": rec.Info.XAgentsCore}
	}
	return map[string]any{"id": rec.Info.ID, "type": rec.Info.Type, "capability_directories": []string{},
		"files": rec.Info.Files, "plugins": rec.Info.Plugins, "skills": rec.Info.Skills,
		"packages": map[string][]string{"npm": {}, "python": {}, "system": {}}, "x_agents_core": rec.Info.XAgentsCore}
}

func (a *API) putEnvironment(ctx context.Context, rec environmentRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return a.res.PutResource(ctx, EnvironmentRecordKind, rec.Info.ID, b)
}

func (a *API) getEnvironmentRecord(ctx context.Context, id string) (environmentRecord, error) {
	var rec environmentRecord
	doc, ok, err := a.res.GetResource(ctx, EnvironmentRecordKind, id)
	switch {
	case err != nil:
		return rec, err
	case !ok:
		return rec, notFound(CodeUnknownEnvironment, "environment_id", "no environment %q", id)
	}
	return rec, json.Unmarshal(doc, &rec)
}

// bindEnvironment maps a Session's environment parameter (member
// "environment") onto Core's binding: none; self_hosted inline
// (workspace_directory must be /workspace); openai_hosted inline; or
// openai_hosted with the environment_id of a created Environment. It
// writes nothing (see recordBinding).
func (a *API) bindEnvironment(ctx context.Context, raw json.RawMessage) (EnvironmentBinding, error) {
	const param = "environment"
	typ, err := unionType(param, raw)
	if err != nil {
		return EnvironmentBinding{}, err
	}
	switch typ {
	case string(core.EnvNone):
		var p struct {
			Type string `json:"type"`
		}
		if err := decodeMember(param, raw, &p); err != nil {
			return EnvironmentBinding{}, err
		}
		return EnvironmentBinding{Kind: core.EnvNone, Answer: json.RawMessage(`{"type":"none"}`)}, nil
	case string(core.EnvSelfHosted):
		var p selfHostedParams
		if err := decodeMember(param, raw, &p); err != nil {
			return EnvironmentBinding{}, err
		}
		switch {
		case p.WorkspaceDirectory == nil:
			return EnvironmentBinding{}, badParam(CodeInvalidValue, param+".workspace_directory", "workspace_directory is required")
		case *p.WorkspaceDirectory != WorkspaceRoot:
			return EnvironmentBinding{}, notSupported(param+".workspace_directory", "Core's Runtimes serve the workspace at %s", WorkspaceRoot)
		case len(p.CapabilityDirectories) > 0:
			return EnvironmentBinding{}, notSupported(param+".capability_directories", "Core's Runtimes expose no capability directories")
		}
		coreID := newUUID()
		rec := environmentRecord{Info: EnvironmentInfo{ID: newID("env"), Object: "agent.environment", Type: typ, Status: "ready",
			Files: []HostedFileJSON{}, Plugins: []HostedPackageJSON{}, Skills: []HostedPackageJSON{},
			XAgentsCore: EnvironmentXJSON{EnvironmentID: coreID}},
			CoreID: coreID, VaultIDs: []string{}, WorkspaceDirectory: WorkspaceRoot}
		return bindingOf(rec, true), nil
	}
	var p hostedParams
	if err := decodeMember(param, raw, &p); err != nil {
		return EnvironmentBinding{}, err
	}
	if p.EnvironmentID != nil {
		if p.configured() {
			return EnvironmentBinding{}, badParam(CodeInvalidValue, param, "an environment_id reference carries no other configuration")
		}
		rec, err := a.getEnvironmentRecord(ctx, *p.EnvironmentID)
		if err != nil {
			return EnvironmentBinding{}, err
		}
		if rec.Info.Type != string(core.EnvOpenAIHosted) {
			return EnvironmentBinding{}, badParam(CodeInvalidValue, param+".environment_id", "environment %s is not openai_hosted", rec.Info.ID)
		}
		return bindingOf(rec, false), nil
	}
	rec, err := newHostedRecord(param, p, nil)
	if err != nil {
		return EnvironmentBinding{}, err
	}
	return bindingOf(rec, true), nil
}

// newHostedRecord checks an openai_hosted configuration and returns its
// record (not yet stored).
func newHostedRecord(param string, p hostedParams, vaultIDs []string) (environmentRecord, error) {
	coreID := newUUID()
	def, info, err := hostedDefinition(param, p, coreID)
	if err != nil {
		return environmentRecord{}, err
	}
	if vaultIDs == nil {
		vaultIDs = []string{}
	}
	info.ID, info.XAgentsCore.EnvironmentID = newID("env"), coreID
	return environmentRecord{Info: info, CoreID: coreID, Definition: def, VaultIDs: vaultIDs}, nil
}

// unionType reads the type member of a tagged union member param.
func unionType(param string, raw json.RawMessage) (string, error) {
	if isNullRaw(raw) {
		return "", badParam(CodeInvalidValue, param, "%s is required", param)
	}
	var t struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", badParam(CodeBadJSON, param, "%s must be an object with a string type", param)
	}
	if t.Type == nil {
		return "", badParam(CodeInvalidValue, param+".type", "%s.type is required", param)
	}
	switch *t.Type {
	case string(core.EnvNone), string(core.EnvSelfHosted), string(core.EnvOpenAIHosted):
		return *t.Type, nil
	}
	return "", badParam(CodeInvalidValue, param+".type", "%s.type must be none, self_hosted or openai_hosted", param)
}

// ----- routes -----

// environmentRoutes are the Environments, Environment Files, templates
// (refused) and Session artifacts (refused) routes. The template routes
// come first: /agents/environments/templates/{id} wins over
// /agents/environments/{id}/files for .../templates/files.
func environmentRoutes() []Route {
	tmpl := refuseRoute(http.StatusBadRequest, CodeNotSupported,
		"Core serves no environment templates: give the environment inline when you create it or the Session")
	art := refuseRoute(http.StatusBadRequest, CodeNotSupported,
		"Core records no Session artifacts (the Runtime protocol reports none): read files with the environment files routes")
	return []Route{
		{"POST", "/v1/agents/environments/templates", tmpl},
		{"GET", "/v1/agents/environments/templates", tmpl},
		{"GET", "/v1/agents/environments/templates/{template}", tmpl},
		{"POST", "/v1/agents/environments/templates/{template}", tmpl},
		{"DELETE", "/v1/agents/environments/templates/{template}", tmpl},
		{"POST", "/v1/agents/environments", (*API).createEnvironment},
		{"GET", "/v1/agents/environments", (*API).listEnvironments},
		{"GET", "/v1/agents/environments/{environment}", (*API).retrieveEnvironment},
		{"POST", "/v1/agents/environments/{environment}/files", (*API).createEnvironmentFile},
		{"GET", "/v1/agents/environments/{environment}/files", (*API).listEnvironmentFiles},
		{"GET", "/v1/agents/sessions/{session}/artifacts", art},
		{"GET", "/v1/agents/sessions/{session}/artifacts/{artifact}", art},
		{"DELETE", "/v1/agents/sessions/{session}/artifacts/{artifact}", art},
		{"GET", "/v1/agents/sessions/{session}/artifacts/{artifact}/content", art},
	}
}

// refuseRoute answers every call of a route the SDK has and Core does not
// serve with one OpenAI-shaped error; the body is not read.
func refuseRoute(status int, code, msg string) func(*API, http.ResponseWriter, *http.Request) {
	return func(_ *API, w http.ResponseWriter, _ *http.Request) { failV1(w, status, "", code, "", msg) }
}

func (a *API) createEnvironment(w http.ResponseWriter, r *http.Request) {
	var p struct {
		Environment json.RawMessage `json:"environment"`
		VaultIDs    []string        `json:"vault_ids"`
	}
	if _, err := readV1(w, r, &p, false); err != nil {
		a.failV1Err(w, err)
		return
	}
	if r.Header.Get("Idempotency-Key") != "" {
		a.failV1Err(w, notSupported("Idempotency-Key", "environment creation is not deduplicated by Idempotency-Key"))
		return
	}
	typ, err := unionType("environment", p.Environment)
	if err == nil && typ != string(core.EnvOpenAIHosted) {
		err = badParam(CodeInvalidValue, "environment.type", "an Environment is created openai_hosted; a self_hosted one is given inline to its Session")
	}
	var hp hostedParams
	if err == nil {
		err = decodeMember("environment", p.Environment, &hp)
	}
	if err == nil && hp.EnvironmentID != nil {
		err = badParam(CodeUnknownField, "environment.environment_id", "environment_id names an Environment; it is not part of a new one")
	}
	if err == nil && len(p.VaultIDs) > 10 {
		err = badParam(CodeInvalidValue, "vault_ids", "at most 10 vaults")
	}
	if err == nil {
		err = a.vaults.CheckVaults(r.Context(), "vault_ids", p.VaultIDs)
	}
	var rec environmentRecord
	if err == nil {
		rec, err = newHostedRecord("environment", hp, slices.Clone(p.VaultIDs))
	}
	if err == nil {
		err = a.putEnvironment(r.Context(), rec)
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rec.Info)
}

func (a *API) retrieveEnvironment(w http.ResponseWriter, r *http.Request) {
	rec, err := a.getEnvironmentRecord(r.Context(), r.PathValue("environment"))
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rec.Info)
}

// listEnvironments lists the openai_hosted Environments (type may only be
// openai_hosted, the SDK's default).
func (a *API) listEnvironments(w http.ResponseWriter, r *http.Request) {
	p, err := listParams(r, true, "type")
	if err == nil {
		if t := r.URL.Query().Get("type"); r.URL.Query().Has("type") && t != string(core.EnvOpenAIHosted) {
			err = badParam(CodeInvalidValue, "type", "type must be openai_hosted")
		}
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	var ids []string
	var items []any
	err = allResources(r.Context(), a.res, EnvironmentRecordKind, func(it store.Resource) error {
		var rec environmentRecord
		if err := json.Unmarshal(it.Doc, &rec); err != nil {
			return err
		}
		if rec.Info.Type == string(core.EnvOpenAIHosted) {
			ids, items = append(ids, it.ID), append(items, rec.Info)
		}
		return nil
	})
	if err == nil {
		err = writeCursorPage(w, ids, items, p)
	}
	if err != nil {
		a.failV1Err(w, err)
	}
}

// writeCursorPage answers the page of (ids, items) in creation order that
// p selects.
func writeCursorPage(w http.ResponseWriter, ids []string, items []any, p ListParams) error {
	if p.Desc {
		slices.Reverse(ids)
		slices.Reverse(items)
	}
	start := 0
	if p.After != "" {
		i := slices.Index(ids, p.After)
		if i < 0 {
			return badParam(CodeBadCursor, "after", "after names no object of this list")
		}
		start = i + 1
	}
	end := min(len(ids), start+p.Limit)
	writeJSON(w, http.StatusOK, newPage(items[start:end], ids[start:end], end < len(ids)))
	return nil
}

// EnvironmentFileJSON is a live file of an Environment.
type EnvironmentFileJSON struct {
	EnvironmentID string `json:"environment_id"`
	Object        string `json:"object"`
	Path          string `json:"path"`
	SizeBytes     int64  `json:"size_bytes"`
}

// workspacePath turns an absolute path inside /workspace into Core's
// workspace-relative path ("" is the root, allowed only when root).
func workspacePath(param, p string, root bool) (string, error) {
	if p == WorkspaceRoot && root {
		return "", nil
	}
	rel, ok := strings.CutPrefix(p, WorkspaceRoot+"/")
	if !ok || rel == "" || path.Clean(p) != p || wire.ValidWorkspacePath(rel) != nil {
		return "", badParam(CodeInvalidValue, param, "%s must be a clean absolute path inside %s", param, WorkspaceRoot)
	}
	return rel, nil
}

// environmentSession is the latest Session bound to the Environment: the
// one whose workspace its files are.
func (a *API) environmentSession(ctx context.Context, rec environmentRecord) (string, error) {
	var sid string
	var seq uint64
	err := a.s.Query(ctx, func(v server.View) {
		for _, s := range v.Backend().Sessions() {
			if s.Agent.EnvironmentID == rec.CoreID && (sid == "" || s.Seq > seq) {
				sid, seq = s.ID, s.Seq
			}
		}
	})
	if err == nil && sid == "" {
		err = &v1Bad{status: http.StatusConflict, code: CodeEnvironmentNotConnected, param: "environment_id",
			msg: fmt.Sprintf("no Session uses environment %s yet: its workspace exists once a Session is bound to it", rec.Info.ID)}
	}
	return sid, err
}

// workspaceResult runs a workspace event and returns its completed
// result, or the OpenAI-shaped refusal of any other outcome.
func (a *API) workspaceResult(ctx context.Context, ev func(core.CallID) core.Event) (*core.WorkspaceResult, error) {
	rep, err := a.s.Call(ctx, server.Request{Event: ev})
	if err != nil {
		return nil, err
	}
	res, _ := rep.Result.Value.(*core.WorkspaceResult)
	if res == nil {
		return nil, errOr(rep.Result.Err)
	}
	msg := func(what string) string {
		if res.Code != "" {
			return fmt.Sprintf("%s (%s)", what, res.Code)
		}
		return what
	}
	switch res.Outcome {
	case core.WorkspaceCompleted:
		return res, nil
	case core.WorkspaceRejected:
		st := http.StatusConflict
		if res.Code == wire.ReadNotFound || res.Code == wire.ReadNotDirectory {
			st = http.StatusNotFound
		}
		return nil, &v1Bad{status: st, code: CodeWorkspaceRejected, msg: msg("the Runtime refused the workspace operation; nothing changed")}
	case core.WorkspaceUnknown:
		return nil, &v1Bad{status: http.StatusConflict, code: CodeWorkspaceUnknown,
			msg: msg("the write may have been applied: no receipt came; later writes wait until it is settled")}
	}
	return nil, &v1Bad{status: http.StatusServiceUnavailable, code: CodeWorkspaceUnavailable, msg: msg("the workspace operation did not complete")}
}

func (a *API) createEnvironmentFile(w http.ResponseWriter, r *http.Request) {
	var p struct {
		Type   string  `json:"type"`
		Path   string  `json:"path"`
		Data   *string `json:"data"`
		FileID *string `json:"file_id"`
	}
	_, err := readV1(w, r, &p, false)
	var rel string
	var data []byte
	switch {
	case err != nil:
	case r.Header.Get("Idempotency-Key") != "":
		// A workspace write is not deduplicated: a retry writes again.
		err = notSupported("Idempotency-Key", "a file write is not deduplicated by Idempotency-Key")
	case p.Type == "file_id":
		err = notSupported("type", "Core has no Files API: give the file inline")
	case p.Type != "inline":
		err = badParam(CodeInvalidValue, "type", "type must be inline")
	case p.FileID != nil:
		err = badParam(CodeUnknownField, "file_id", "file_id is only for type file_id")
	case p.Data == nil:
		err = badParam(CodeInvalidValue, "data", "data is required")
	}
	if err == nil {
		rel, err = workspacePath("path", p.Path, false)
	}
	if err == nil {
		if data, err = base64.StdEncoding.DecodeString(*p.Data); err != nil {
			err = badParam(CodeInvalidValue, "data", "data is not standard base64")
		}
	}
	var rec environmentRecord
	if err == nil {
		rec, err = a.getEnvironmentRecord(r.Context(), r.PathValue("environment"))
	}
	var sid string
	if err == nil {
		sid, err = a.environmentSession(r.Context(), rec)
	}
	if err == nil {
		_, err = a.workspaceResult(r.Context(), func(c core.CallID) core.Event {
			return core.WriteWorkspace{Call: c, Session: sid, Path: rel, Data: data}
		})
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	writeJSON(w, http.StatusOK, EnvironmentFileJSON{EnvironmentID: rec.Info.ID, Object: "agent.environment.file", Path: p.Path, SizeBytes: int64(len(data))})
}

// EnvironmentFilesLimitMax bounds a page of environment files.
const EnvironmentFilesLimitMax = 100

// listEnvironmentFiles lists the regular files of one workspace directory
// (path, default /workspace) in path order (desc by default), paged by an
// opaque token (page; the answer's next).
func (a *API) listEnvironmentFiles(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, desc, dir, after := 20, true, WorkspaceRoot, ""
	var err error
	for name, vs := range q {
		if len(vs) != 1 {
			err = badParam(CodeInvalidValue, name, "%s given %d times", name, len(vs))
			break
		}
		v := vs[0]
		switch name {
		case "limit":
			n, e := strconv.Atoi(v)
			if e != nil || n < 1 || n > EnvironmentFilesLimitMax {
				err = badParam(CodeBadLimit, "limit", "limit must be an integer in 1..%d", EnvironmentFilesLimitMax)
			}
			limit = n
		case "order":
			if v != "asc" && v != "desc" {
				err = badParam(CodeInvalidValue, "order", "order must be asc or desc")
			}
			desc = v == "desc"
		case "path":
			dir = v
		case "page":
			b, e := base64.RawURLEncoding.DecodeString(v)
			if e != nil || len(b) == 0 {
				err = badParam(CodeBadCursor, "page", "page is not a token of this list")
			}
			after = string(b)
		default:
			err = badParam(CodeInvalidValue, name, "unknown query parameter %q", name)
		}
		if err != nil {
			break
		}
	}
	var rel string
	if err == nil {
		rel, err = workspacePath("path", dir, true)
	}
	var rec environmentRecord
	if err == nil {
		rec, err = a.getEnvironmentRecord(r.Context(), r.PathValue("environment"))
	}
	var sid string
	if err == nil {
		sid, err = a.environmentSession(r.Context(), rec)
	}
	var res *core.WorkspaceResult
	if err == nil {
		res, err = a.workspaceResult(r.Context(), func(c core.CallID) core.Event {
			return core.ReadWorkspace{Call: c, Session: sid, Path: rel, Directory: true, MaxEntries: wire.DirectoryEntriesMax}
		})
	}
	if err == nil && res.EntriesTruncated {
		err = &v1Bad{status: http.StatusConflict, code: CodeWorkspaceUnavailable, param: "path",
			msg: fmt.Sprintf("the directory holds more than %d entries, more than Core reads at once", wire.DirectoryEntriesMax)}
	}
	if err != nil {
		a.failV1Err(w, err)
		return
	}
	var files []EnvironmentFileJSON
	for _, e := range res.Entries {
		if e.Kind != wire.EntryFile {
			continue
		}
		f := EnvironmentFileJSON{EnvironmentID: rec.Info.ID, Object: "agent.environment.file", Path: dir + "/" + e.Name}
		if e.SizeBytes != nil {
			f.SizeBytes = *e.SizeBytes
		}
		files = append(files, f)
	}
	slices.SortFunc(files, func(x, y EnvironmentFileJSON) int {
		if desc {
			return strings.Compare(y.Path, x.Path)
		}
		return strings.Compare(x.Path, y.Path)
	})
	start := 0
	if after != "" {
		i := slices.IndexFunc(files, func(f EnvironmentFileJSON) bool { return f.Path == after })
		if i < 0 {
			a.failV1Err(w, badParam(CodeBadCursor, "page", "page names no file of this directory"))
			return
		}
		start = i + 1
	}
	end := min(len(files), start+limit)
	page := struct {
		Object  string                `json:"object"`
		Data    []EnvironmentFileJSON `json:"data"`
		HasMore bool                  `json:"has_more"`
		Next    *string               `json:"next"`
	}{Object: "list", Data: append([]EnvironmentFileJSON{}, files[start:end]...), HasMore: end < len(files)}
	if page.HasMore {
		tok := base64.RawURLEncoding.EncodeToString([]byte(files[end-1].Path))
		page.Next = &tok
	}
	writeJSON(w, http.StatusOK, page)
}
