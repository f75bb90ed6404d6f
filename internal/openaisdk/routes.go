package openaisdk

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// AgentsDir is where the package keeps its beta Agents resources, one
// CommonJS file a resource.
const AgentsDir = "resources/beta/agents"

// Route is one HTTP route a method of the SDK's beta Agents resources
// calls.
type Route struct {
	// Method is the HTTP method: GET, POST or DELETE.
	Method string `json:"method"`
	// Path is the path under the client's base URL, its parameters
	// written {snake_case}: /agents/sessions/{session_id}/turns.
	Path string `json:"path"`
	// SDK names the method as a program calls it:
	// beta.agents.sessions.turns.list.
	SDK string `json:"sdk"`
	// Page is the page class of a list method (CursorPage,
	// ConversationCursorPage, TokenPage, ...); empty otherwise.
	Page string `json:"page,omitempty"`
	// Stream is true when the method reads the answer as Server-Sent
	// Events.
	Stream bool `json:"stream,omitempty"`
}

var (
	classRe  = regexp.MustCompile(`^class (\w+) extends resource_1\.APIResource \{$`)
	methodRe = regexp.MustCompile(`^    (\w+)\(.*\) \{$`)
	callRe   = regexp.MustCompile("this\\._client\\.(get|post|put|patch|delete|getAPIList)\\(" +
		"(?:'([^']*)'|\\(0, path_1\\.path\\) `([^`]*)`)" +
		"(?:, \\(?(?:pagination_1\\.)?(\\w+)\\)?,)?")
	paramRe = regexp.MustCompile(`\$\{(\w+)\}`)
)

// Routes reads the routes of every resource file under pkg/AgentsDir
// (pkg is the unpacked package, node_modules/openai), sorted by path, then
// method, then SDK name. A method with more than one call, a call whose
// path is not a literal, and a file whose class has no route are errors:
// the reader would otherwise miss routes silently.
func Routes(pkg string) ([]Route, error) {
	root := filepath.Join(pkg, AgentsDir)
	var out []Route
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".js") {
			return nil
		}
		rel, _ := filepath.Rel(filepath.Join(pkg, "resources"), path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		routes, err := fileRoutes(resourceName(rel), string(b))
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		out = append(out, routes...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("openaisdk: no route under %s", root)
	}
	slices.SortFunc(out, func(a, b Route) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if c := strings.Compare(a.Method, b.Method); c != 0 {
			return c
		}
		return strings.Compare(a.SDK, b.SDK)
	})
	return out, nil
}

// resourceName is the accessor of the resource a file defines:
// beta/agents/sessions/turns/items.js is beta.agents.sessions.turns.items,
// and beta/agents/sessions/sessions.js is beta.agents.sessions.
func resourceName(rel string) string {
	parts := strings.Split(strings.TrimSuffix(filepath.ToSlash(rel), ".js"), "/")
	if n := len(parts); n >= 2 && parts[n-1] == parts[n-2] {
		parts = parts[:n-1]
	}
	return strings.Join(parts, ".")
}

// fileRoutes reads one file: its class's methods and the client call in
// each. A file without a resource class (an index, a re-export) has none.
func fileRoutes(resource, src string) ([]Route, error) {
	var out []Route
	inClass := false
	method, calls := "", 0
	flush := func() error {
		if method != "" && calls > 1 {
			return fmt.Errorf("method %s makes %d client calls", method, calls)
		}
		method, calls = "", 0
		return nil
	}
	classes := 0
	for i, line := range strings.Split(src, "\n") {
		if classRe.MatchString(line) {
			inClass = true
			classes++
			continue
		}
		if !inClass {
			continue
		}
		if line == "}" {
			if err := flush(); err != nil {
				return nil, err
			}
			inClass = false
			continue
		}
		if m := methodRe.FindStringSubmatch(line); m != nil {
			if err := flush(); err != nil {
				return nil, err
			}
			method = m[1]
			continue
		}
		if !strings.Contains(line, "this._client.") {
			continue
		}
		all := callRe.FindAllStringSubmatch(line, -1)
		if len(all) != strings.Count(line, "this._client.") {
			return nil, fmt.Errorf("line %d: a client call this reader does not understand: %s", i+1, strings.TrimSpace(line))
		}
		if method == "" || method == "constructor" {
			return nil, fmt.Errorf("line %d: a client call outside a method", i+1)
		}
		for _, m := range all {
			calls++
			r := Route{Method: strings.ToUpper(m[1]), Path: m[2], SDK: resource + "." + method}
			if m[3] != "" {
				r.Path = paramRe.ReplaceAllStringFunc(m[3], func(p string) string {
					return "{" + snake(paramRe.FindStringSubmatch(p)[1]) + "}"
				})
			}
			if m[1] == "getAPIList" {
				r.Method, r.Page = "GET", m[4]
			}
			if r.Method == "GET" && method == "stream" && strings.Contains(src, "stream: true") {
				r.Stream = true
			}
			out = append(out, r)
		}
	}
	if inClass {
		return nil, fmt.Errorf("a class never closed")
	}
	if classes > 0 && len(out) == 0 {
		return nil, fmt.Errorf("a resource class without a route")
	}
	return out, nil
}

// snake writes a parameter name the way the API documents it:
// sessionID and session_id are session_id, environmentTemplateID is
// environment_template_id.
func snake(name string) string {
	name = strings.Replace(name, "ID", "Id", 1)
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// MarshalRoutes is the table's file form: a JSON array, one route a line,
// ending in a newline.
func MarshalRoutes(routes []Route) []byte {
	var b strings.Builder
	b.WriteString("[\n")
	for i, r := range routes {
		line, _ := json.Marshal(r)
		b.WriteString("  ")
		b.Write(line)
		if i < len(routes)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return []byte(b.String())
}
