package wire

// directDecoder is a payload type that reads its own canonical JSON
// without reflection: decodeDirect accepts only input the one-pass
// decoder accepts with the same result (no whitespace, members in
// declaration order, plain ASCII strings, short integers) and reports
// false for anything else, which the one-pass decoder then reads, with
// every error message. TestDirectDecodeMatchesOnePass holds it to that.
type directDecoder interface {
	decodeDirect(data []byte, pos int) (p Payload, end int, ok bool)
}

// directScan reads canonical JSON tokens; every method reports false
// for anything it does not accept.
type directScan struct {
	d []byte
	i int
}

func (s *directScan) byte(c byte) bool {
	if s.i < len(s.d) && s.d[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plain reads a string of printable ASCII without quote or backslash,
// returning its content.
func (s *directScan) plain() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.d) && plainStringByte[s.d[s.i]] {
		s.i++
	}
	if s.i >= len(s.d) || s.d[s.i] != '"' {
		return nil, false
	}
	s.i++
	return s.d[start : s.i-1], true
}

// name reads a member name and its colon.
func (s *directScan) name() ([]byte, bool) {
	n, ok := s.plain()
	return n, ok && s.byte(':')
}

func (s *directScan) str() (string, bool) {
	b, ok := s.plain()
	return string(b), ok
}

func (s *directScan) boolean() (v, ok bool) {
	switch {
	case len(s.d)-s.i >= 4 && string(s.d[s.i:s.i+4]) == "true":
		s.i += 4
		return true, true
	case len(s.d)-s.i >= 5 && string(s.d[s.i:s.i+5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// digitsMax keeps every accepted integer far inside int64 and uint64.
const digitsMax = 18

// uint reads a non-negative integer without leading zeros, exponent or
// fraction.
func (s *directScan) uint() (uint64, bool) {
	start := s.i
	var n uint64
	for s.i < len(s.d) && s.d[s.i] >= '0' && s.d[s.i] <= '9' {
		n = n*10 + uint64(s.d[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > digitsMax || (digits > 1 && s.d[start] == '0') {
		return 0, false
	}
	if s.i < len(s.d) && (s.d[s.i] == '.' || s.d[s.i] == 'e' || s.d[s.i] == 'E') {
		return 0, false
	}
	return n, true
}

func (s *directScan) int() (int64, bool) {
	neg := s.byte('-')
	n, ok := s.uint()
	if neg {
		return -int64(n), ok
	}
	return int64(n), ok
}

// next ends a member: true with more to come, false at the closing
// brace; ok false for anything else.
func (s *directScan) next() (more, ok bool) {
	switch {
	case s.byte(','):
		return true, true
	case s.byte('}'):
		return false, true
	}
	return false, false
}

func (PreparationStatus) decodeDirect(data []byte, pos int) (Payload, int, bool) {
	s := directScan{d: data, i: pos}
	var p PreparationStatus
	if !s.byte('{') {
		return nil, 0, false
	}
	const (
		executorID = iota
		reused
		handle
		revision
		state
		expiresAt
		runID
		errorCode
		operation
	)
	next, seen := 0, uint16(0)
	for more := true; more; {
		name, ok := s.name()
		if !ok {
			return nil, 0, false
		}
		field := -1
		switch string(name) {
		case "executor_id":
			field = executorID
			p.ExecutorID, ok = s.str()
		case "reused":
			field = reused
			p.Reused, ok = s.boolean()
		case "handle":
			field = handle
			p.Handle, ok = s.str()
		case "revision":
			field = revision
			p.Revision, ok = s.uint()
		case "state":
			field = state
			p.State, ok = s.str()
		case "expires_at":
			field = expiresAt
			p.ExpiresAt, ok = s.int()
		case "run_id":
			field = runID
			p.RunID, ok = s.str()
		case "error_code":
			field = errorCode
			p.ErrorCode, ok = s.str()
		case "operation":
			field = operation
			p.Operation, ok = s.str()
		}
		if field < next || !ok {
			return nil, 0, false
		}
		next, seen = field+1, seen|1<<field
		if more, ok = s.next(); !ok {
			return nil, 0, false
		}
	}
	if seen&(1<<revision) == 0 || seen&(1<<state) == 0 {
		return nil, 0, false // a required member is missing
	}
	return p, s.i, true
}
