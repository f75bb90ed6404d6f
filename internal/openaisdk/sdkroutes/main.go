// Command sdkroutes writes the route table of the pinned OpenAI SDK's
// beta Agents resources as JSON: one object a route (method, path, SDK
// method, page class, stream). core/api/testdata/sdk-routes.json is its
// output for the pinned package:
//
//	go run ./internal/openaisdk/sdkroutes -o core/api/testdata/sdk-routes.json
//
// -pkg names the unpacked package (default: the cache `make openai-sdk`
// fills).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnstile-sim/turnstile/internal/openaisdk"
)

func main() {
	pkg := flag.String("pkg", "", "the unpacked openai package (default: the make openai-sdk cache)")
	out := flag.String("o", "", "write the table to this file (default: stdout)")
	flag.Parse()
	if err := run(*pkg, *out); err != nil {
		fmt.Fprintln(os.Stderr, "sdkroutes:", err)
		os.Exit(1)
	}
}

func run(pkg, out string) error {
	if pkg == "" {
		modules, err := openaisdk.CachedModules()
		if err != nil {
			return err
		}
		if err := openaisdk.Check(modules); err != nil {
			return fmt.Errorf("%w (run make openai-sdk)", err)
		}
		pkg = filepath.Join(modules, "openai")
	}
	routes, err := openaisdk.Routes(pkg)
	if err != nil {
		return err
	}
	b := openaisdk.MarshalRoutes(routes)
	if out == "" {
		_, err = os.Stdout.Write(b)
		return err
	}
	return os.WriteFile(out, b, 0o644)
}
