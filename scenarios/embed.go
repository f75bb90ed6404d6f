package scenarios

import (
	"embed"
	"io/fs"
	"path"
	"slices"
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

// contractProfile qualifies every operation, placement and MCP origin
// and declares no control: the Runtime's declaration alone decides.
//
//go:embed contract-profile.json
var contractProfile []byte

// ContractProfile returns the engine profile file that qualifies
// ContractKind (turnstile core -engine-profiles).
func ContractProfile() []byte { return append([]byte(nil), contractProfile...) }
