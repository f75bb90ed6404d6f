package runner

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/turnstile-sim/turnstile/adapters/agent"
	"github.com/turnstile-sim/turnstile/daemon"
	"github.com/turnstile-sim/turnstile/wire"
)

// pluginMCPFile is the MCP declaration of a plugin: the member .mcp.json
// at the root of its zip archive, {"mcpServers": {"<label>": {...}}}.
const pluginMCPFile = ".mcp.json"

// pluginMCPBytesMax bounds a plugin's MCP declaration.
const pluginMCPBytesMax = 1 << 20

// pluginMCPServer is one server of a plugin's declaration. Only HTTP MCP
// is resolved; any other transport, or a member this Runtime does not
// understand, refuses the preparation rather than being dropped.
type pluginMCPServer struct {
	Type         string            `json:"type"`
	URL          string            `json:"url"`
	Headers      map[string]string `json:"headers"`
	AllowedTools *[]string         `json:"allowed_tools"`
	Required     bool              `json:"required"`
}

// installedMCPServers reads the MCP servers the installed plugins of the
// snapshot declare, for the Environment env: each plugin's archive under
// the installer's state (plugins/<slot>-<name>.archive, every slot, in
// slot order), servers of one plugin in label order. An archive that is
// not a zip file carries no declaration; a zip whose declaration cannot
// be read, or declares what this Runtime cannot bind, is an error wrapping
// agent.ErrMCPBinding that names the plugin and the server, never a URL
// or a credential.
func (in *Installer) installedMCPServers(env string, installed []daemon.Installed) ([]agent.InstalledMCPServer, error) {
	state := in.State
	if in.Root != "" {
		if env == "" || filepath.Base(env) != env || strings.ContainsAny(env, `/\`) || env == "." || env == ".." {
			return nil, nil
		}
		state = filepath.Join(in.Root, env, stateDirName)
	}
	var out []agent.InstalledMCPServer
	for _, c := range installed {
		if c.Action != wire.PrepareActionPlugin || c.Name == "" || strings.ContainsAny(c.Name, `/\*?[`) {
			continue
		}
		archives, _ := filepath.Glob(filepath.Join(state, "plugins", "*-"+c.Name+".archive"))
		slices.Sort(archives)
		for _, a := range archives {
			servers, err := readPluginMCP(a)
			if err != nil {
				return nil, fmt.Errorf("%w: installed plugin %s: %v", agent.ErrMCPBinding, c.Name, err)
			}
			out = append(out, servers...)
		}
	}
	return out, nil
}

// errPluginDeclaration: the plugin's MCP declaration is malformed.
var errPluginDeclaration = errors.New(pluginMCPFile + " is not a valid MCP declaration")

func readPluginMCP(archive string) ([]agent.InstalledMCPServer, error) {
	data, err := os.ReadFile(archive)
	if err != nil {
		return nil, errors.New("archive unreadable")
	}
	if !bytes.HasPrefix(data, []byte("PK")) {
		return nil, nil // not a zip archive: no declaration to read
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, errors.New("zip archive unreadable")
	}
	var decl []byte
	for _, f := range zr.File {
		if f.Name != pluginMCPFile {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, errors.New(pluginMCPFile + " unreadable")
		}
		decl, err = io.ReadAll(io.LimitReader(rc, pluginMCPBytesMax+1))
		rc.Close()
		if err != nil || len(decl) > pluginMCPBytesMax {
			return nil, errors.New(pluginMCPFile + " unreadable or too large")
		}
	}
	if decl == nil {
		return nil, nil // the plugin declares no MCP server
	}
	var file struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	dec := json.NewDecoder(bytes.NewReader(decl))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return nil, errPluginDeclaration
	}
	labels := make([]string, 0, len(file.MCPServers))
	for l := range file.MCPServers {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	out := make([]agent.InstalledMCPServer, 0, len(labels))
	for _, l := range labels {
		var s pluginMCPServer
		d := json.NewDecoder(bytes.NewReader(file.MCPServers[l]))
		d.DisallowUnknownFields()
		if err := d.Decode(&s); err != nil {
			return nil, fmt.Errorf("server %q: %w (members: type, url, headers, allowed_tools, required)", l, errPluginDeclaration)
		}
		if s.Type != "http" {
			return nil, fmt.Errorf("server %q: transport %q is not supported: only type http is bound", l, s.Type)
		}
		out = append(out, agent.InstalledMCPServer{Label: l, URL: s.URL, AllowedTools: s.AllowedTools,
			Required: s.Required, Credentialed: len(s.Headers) > 0})
	}
	return out, nil
}
