package scenarios

import "fmt"

// CheckInteraction checks the core-interaction arguments (id= and the
// listed members kind, status, code, attempts) against Core's
// interactions of the Turn, given by ID with their members as the public
// API shows them; it returns the line the machine runner prints.
func CheckInteraction(args map[string]string, all []map[string]string, ids []string) (string, []error) {
	line := "core-interaction id=" + args["id"]
	i := -1
	for j, id := range ids {
		if id == args["id"] {
			i = j
		}
	}
	if i < 0 {
		return line, []error{fmt.Errorf("interaction %s: Core has no record of it (it has %q)", args["id"], ids)}
	}
	var errs []error
	for _, k := range []string{"kind", "status", "code", "attempts"} {
		want, listed := args[k]
		if !listed {
			continue
		}
		line += fmt.Sprintf(" %s=%s", k, all[i][k])
		if all[i][k] != want {
			errs = append(errs, fmt.Errorf("interaction %s: %s=%q, want %q", args["id"], k, all[i][k], want))
		}
	}
	return line, errs
}
