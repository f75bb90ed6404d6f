package linearize

import "fmt"

// The workspace register: one partition per file the workload wrote or
// read through Core's API, whose value is the file's content or absence.
// A put sets the value; a get must return the value of the last put or
// get linearized before it, or any value while the file is unobserved
// (a file whose seed was never observed).

// File is a file's content or absence: the value a put writes and a get
// returns.
type File struct {
	Value   string
	Present bool
}

// fileModel is a register's state; known is false before the first
// operation (a file whose seed was never observed).
type fileModel struct {
	known bool
	val   File
}

func stepFile(s fileModel, in Input, out any) (bool, any) {
	if in.Op == OpPut {
		return true, fileModel{known: true, val: in.File}
	}
	got, _ := out.(File)
	if !s.known {
		return true, fileModel{known: true, val: got}
	}
	return got == s.val, s
}

func describeFile(v File) string {
	if !v.Present {
		return "absent"
	}
	return fmt.Sprintf("%q", v.Value)
}
