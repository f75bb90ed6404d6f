package wire

import (
	"strconv"
	"strings"
)

// directDescriber is a payload that writes its own members for Describe,
// without reflection: exactly what describeStruct writes for it (each
// non-zero member as ` name=value`, in declaration order). The most
// frequent frames of a simulated seed take this path;
// TestDirectDescribeMatchesReflection holds it to describeStruct.
type directDescriber interface {
	describeMembers(b *strings.Builder)
}

func describeString(b *strings.Builder, name, v string) {
	if v == "" {
		return
	}
	b.WriteByte(' ')
	b.WriteString(name)
	b.WriteByte('=')
	writeScalar(b, v)
}

func describeBool(b *strings.Builder, name string, v bool) {
	if v {
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteString("=true")
	}
}

func describeInt(b *strings.Builder, name string, v int64) {
	if v != 0 {
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteByte('=')
		var d [20]byte
		b.Write(strconv.AppendInt(d[:0], v, 10))
	}
}

func describeUint(b *strings.Builder, name string, v uint64) {
	if v != 0 {
		b.WriteByte(' ')
		b.WriteString(name)
		b.WriteByte('=')
		var d [20]byte
		b.Write(strconv.AppendUint(d[:0], v, 10))
	}
}

func (p PreparationStatus) describeMembers(b *strings.Builder) {
	describeString(b, "executor_id", p.ExecutorID)
	describeBool(b, "reused", p.Reused)
	describeString(b, "handle", p.Handle)
	describeUint(b, "revision", p.Revision)
	describeString(b, "state", p.State)
	describeInt(b, "expires_at", p.ExpiresAt)
	describeString(b, "run_id", p.RunID)
	describeString(b, "error_code", p.ErrorCode)
	describeString(b, "operation", p.Operation)
}

func (p Delta) describeMembers(b *strings.Builder) {
	describeString(b, "item_id", p.ItemID)
	describeString(b, "delta", p.Delta)
	describeUint(b, "sequence", p.Sequence)
}

func (p PromptSteerAck) describeMembers(b *strings.Builder) {
	describeString(b, "input_id", p.InputID)
	describeBool(b, "accepted", p.Accepted)
	describeBool(b, "written", p.Written)
	describeString(b, "error_code", p.ErrorCode)
	describeString(b, "error", p.Error)
}

func (p WorkspaceRead) describeMembers(b *strings.Builder) {
	describeString(b, "handle", p.Handle)
	describeString(b, "run_id", p.RunID)
	describeString(b, "environment_id", p.EnvironmentID)
	describeString(b, "path", p.Path)
	describeInt(b, "max_bytes", int64(p.MaxBytes))
	describeString(b, "operation", p.Operation)
	describeInt(b, "max_entries", int64(p.MaxEntries))
}
