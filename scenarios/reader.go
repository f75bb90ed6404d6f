package scenarios

import (
	"fmt"
	"strings"

	"github.com/cockroachdb/datadriven"
)

// directive is one raw directive of a file: what datadriven hands a test,
// read without a testing.T so that every error can name its line.
type directive struct {
	pos   string
	cmd   string
	args  []datadriven.CmdArg
	input string
}

// readDirectives splits text in the datadriven layout: a directive line,
// input lines up to a "----" separator, then the expected output up to a
// blank line (or, after a second "----", up to a doubled "----").
// Lines starting with '#' outside input and output are comments.
func readDirectives(name, text string) ([]directive, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []directive
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pos := fmt.Sprintf("%s:%d", name, i+1)
		if line == "----" {
			return nil, &Error{Pos: pos, Msg: "separator ---- without a directive"}
		}
		cmd, args, err := datadriven.ParseLine(line)
		if err != nil {
			return nil, &Error{Pos: pos, Msg: err.Error()}
		}
		d := directive{pos: pos, cmd: cmd, args: args}
		var input []string
		sep := false
		for i++; i < len(lines); i++ {
			if lines[i] == "----" {
				sep = true
				break
			}
			input = append(input, lines[i])
		}
		if !sep {
			return nil, &Error{Pos: pos, Msg: fmt.Sprintf("directive %q has no ---- separator", cmd)}
		}
		d.input = strings.TrimSpace(strings.Join(input, "\n"))
		i = skipExpected(lines, i+1)
		out = append(out, d)
	}
	return out, nil
}

// skipExpected returns the index of the last line of the expected output
// that starts at lines[i].
func skipExpected(lines []string, i int) int {
	if i < len(lines) && lines[i] == "----" {
		for j := i + 1; j+1 < len(lines); j++ {
			if lines[j] == "----" && lines[j+1] == "----" {
				return j + 1
			}
		}
		return len(lines) - 1
	}
	for ; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "" {
			return i
		}
	}
	return len(lines) - 1
}
