package api_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/turnstile-sim/turnstile/core/api"
)

type openapiDoc struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
	Comps   struct {
		Schemas map[string]struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"schemas"`
	} `json:"components"`
}

// TestOpenAPIMatchesTheRouter: the document describes exactly the routes
// Register mounts, and exactly the error codes the API answers.
func TestOpenAPIMatchesTheRouter(t *testing.T) {
	var doc openapiDoc
	if err := json.Unmarshal(api.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	var documented, routed []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	for _, r := range api.Routes() {
		routed = append(routed, r.Method+" "+r.Path)
	}
	slices.Sort(documented)
	slices.Sort(routed)
	if !slices.Equal(documented, routed) {
		t.Fatalf("documented %v\nrouted     %v", documented, routed)
	}
	codes := doc.Comps.Schemas["Error"].Properties["error"].Enum
	want := slices.Clone(api.Codes)
	slices.Sort(codes)
	slices.Sort(want)
	if !slices.Equal(codes, want) {
		t.Fatalf("documented codes %v\nAPI codes        %v", codes, want)
	}
}
