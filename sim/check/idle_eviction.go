package check

import (
	"strconv"
	"strings"
)

// Checks: idle_eviction (rules.go), the order the Runtime documents (the
// seeds leave it to its resource policy). Every executor of a device is
// followed in the executor index (executor_index.go): reserved by an
// admission, busy with the Run its started status names, idle from the
// instant the daemon published the end of its use (released, expired or
// failed; done), closing from the first close request or from the
// retirement of the connection it is bound to (executor_connection.go:
// never idle again). A close in the step that delivered an
// execution_prepare to the device is that eviction, judged only when every
// executor of the device has a known state. Closing a Session's idle executor that holds
// no native identity for a prepare naming agent_session_id is no eviction:
// a Turn on it would start a new native root where the history must be
// resumed (runtime-harness-protocol: 当需要现有历史时，恢复绝不能启动新的根).
const CheckIdleEviction = "idle_eviction"

// CloseRequested records the Harness receiving a close request for an
// executor (before its outcome is known). In the step that delivered an
// execution_prepare to the device, it is the eviction the prepare caused.
func (l *Ledger) CloseRequested(at int64, device, executor string) {
	d := l.execDevice(device)
	x := &d.executor(executor).evict
	if x.phase == 0 {
		return
	}
	if d.prepareAt == at && x.phase == evictIdle {
		if p := d.lastPrepare; p.Configuration.AgentSessionID != "" && x.session == p.SessionID && !x.native {
			l.reach(MarkResumeReplacedExecutor) // not an eviction: the executor cannot resume
		} else {
			l.judgeEviction(at, device, d, executor, x)
		}
	}
	x.phase = evictClosing
}

func (l *Ledger) judgeEviction(at int64, device string, d *execDevice, id string, x *evictFacts) {
	var older *evictFacts
	var olderID string
	tie := false
	for _, yid := range sortedKeys(d.execs) {
		y := &d.execs[yid].evict
		switch {
		case y.phase == evictUnknown:
			return // not judged: an idle instant the wire does not show
		case yid == id || y.phase != evictIdle:
		case y.idleSince < x.idleSince || y.idleSince == x.idleSince && executorSeq(yid) < executorSeq(id):
			if older == nil || y.idleSince < older.idleSince {
				older, olderID = y, yid
			}
		}
		tie = tie || yid != id && y.phase == evictIdle && y.idleSince == x.idleSince
	}
	l.reach(MarkIdleEvictionJudged)
	if tie {
		l.reach(MarkIdleEvictionTie) // the order among executors idle since one instant decided
	}
	if older != nil {
		l.violate(at, CheckIdleEviction, "%s evicted executor %s (idle since %s) while executor %s was idle longer (since %s)",
			device, id, vtime(x.idleSince), olderID, vtime(older.idleSince))
	}
}

// executorSeq is the creation number in an executor ID ("ex-12" → 12);
// IDs without one sort first.
func executorSeq(id string) int {
	i := strings.LastIndexByte(id, '-')
	n, err := strconv.Atoi(id[i+1:])
	if err != nil {
		return -1
	}
	return n
}
