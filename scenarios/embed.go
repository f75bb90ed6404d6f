package scenarios

import (
	"embed"
	"io/fs"
	"path"
	"slices"

	"github.com/turnstile-sim/turnstile/core/engine"
)

//go:embed testdata/*.txt testdata/include/*.txt
var embedded embed.FS

// Embedded parses every scenario file built into the binary, in name
// order; positions read "testdata/<name>.txt:<line>".
func Embedded() ([]*Scenario, error) { return ParseFS(embedded, "testdata") }

// ParseFS parses every *.txt file of dir in fsys, in name order.
func ParseFS(fsys fs.FS, dir string) ([]*Scenario, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	include := func(name string) ([]byte, error) {
		return fs.ReadFile(fsys, path.Join(dir, "include", name+".txt"))
	}
	var out []*Scenario
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		sc, err := Parse(n, string(b), include)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// ContractKind is the Harness kind the scenarios' sessions name.
const ContractKind = "contract"

// ContractNoImagesKind is the kind a scenario's Session names with
// `api submit-turn kind=contract-no-images`: the contract kind's profile
// without message_images and function_result_images, for the scenarios
// where the engine profile, not the Runtime's declaration, refuses images.
const ContractNoImagesKind = "contract-no-images"

// contractProfile qualifies every operation, placement and MCP origin
// for ContractKind and declares no control: the Runtime's declaration
// alone decides; ContractNoImagesKind's profile is the same without
// images.
//
//go:embed contract-profile.json
var contractProfile []byte

// ContractProfile returns the engine profile file that qualifies
// ContractKind and ContractNoImagesKind (turnstile core -engine-profiles).
func ContractProfile() []byte { return append([]byte(nil), contractProfile...) }

// ContractPolicy is the Policy over ContractProfile, the catalog the
// in-process Core runners play the scenarios with.
func ContractPolicy() *engine.Policy {
	ps, err := engine.ParseProfiles(contractProfile)
	if err != nil {
		panic("scenarios: contract-profile.json: " + err.Error())
	}
	p := engine.For(engine.NewCatalog(ps...))
	return &p
}
