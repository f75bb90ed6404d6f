package linearize

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// visualizeIllegal writes the visualization of partition part (its
// operations ops) to w, made to be read on its own: only that partition
// (porcupine lays hundreds side by side), only the faults that overlap it,
// and a banner on top stating the violation in words. The page opens
// unscrolled; the banner's link, or the fragment #first-error, jumps to
// the first illegal linearization point.
func visualizeIllegal(w io.Writer, part string, ops []porcupine.Operation, faults []Fault,
	timeout time.Duration) error {
	model := Model()
	_, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	lo, hi := span(ops)
	shown := overlapping(faults, lo, hi)
	info.AddAnnotations(faultAnnotations(shown))
	var b bytes.Buffer
	if err := porcupine.Visualize(model, info, &b); err != nil {
		return err
	}
	page := b.Bytes()
	banner := violationBanner(part, ops, info, len(shown), lo, hi)
	page = bytes.Replace(page, []byte("</style>"), []byte(bannerStyle+"</style>"), 1)
	page = bytes.Replace(page, []byte("<body>"), []byte("<body>\n    "+banner), 1)
	page = bytes.Replace(page, []byte("<title>Porcupine</title>"),
		[]byte("<title>"+html.EscapeString(part)+" not linearizable</title>"), 1)
	page = bytes.Replace(page, []byte("</body>"), []byte(jumpOnRequest+"</body>"), 1)
	_, err := w.Write(page)
	return err
}

// bannerStyle places the banner in the page's flow below porcupine's
// fixed legend, full width, white on #7a0019 (bannerColor in the tests),
// a colour the rest of the page does not use.
const bannerStyle = `
      #turnstile-violation { margin: 40px 0 0 0; padding: 12px 16px 14px 16px; background: #7a0019;
        color: #fff; font: 16px/1.45 Helvetica, Arial, sans-serif; max-width: 1200px; }
      #turnstile-violation h1 { margin: 0 0 6px 0; font-size: 22px; }
      #turnstile-violation p { margin: 4px 0; }
      #turnstile-violation a { color: #ffe9a8; cursor: pointer; text-decoration: underline; }
      #turnstile-violation code { font-size: 15px; }
      #canvas { margin-top: 14px; }
    `

// violationBanner states the violation in words (see stuckAt).
func violationBanner(part string, ops []porcupine.Operation, info porcupine.LinearizationInfo,
	faults int, lo, hi int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<div id="turnstile-violation"><h1 id="turnstile-partition">Not linearizable: %s</h1>`,
		html.EscapeString(part))
	if at, ok := stuckAt(ops, info); ok {
		in := at.op.Input.(Input)
		fmt.Fprintf(&b, `<p id="turnstile-observed"><b>Observed:</b> <code>%s</code> (called at %s, returned at %s): `+
			`no point between its call and its return can take it.</p>`,
			html.EscapeString(describeOperation(at.op.Input, at.op.Output)), vtime(at.op.Call), vtime(at.op.Return))
		before := "none of the other operations linearizes before it"
		if at.last != nil {
			before = fmt.Sprintf("%d of the %d operations linearize, the last <code>%s</code> (returned at %s)",
				at.placed, len(ops), html.EscapeString(describeOperation(at.last.Input, at.last.Output)), vtime(at.last.Return))
		}
		fmt.Fprintf(&b, `<p id="turnstile-allowed"><b>Before it</b> %s; <b>a linearizable history allows here</b> %s.</p>`,
			before, html.EscapeString(allowedNext(at.state, in)))
	}
	fmt.Fprintf(&b, `<p>%d operations from %s to %s; %d faults overlap them (annotations below). `+
		`<a id="turnstile-jump" href="#first-error">Jump to the first illegal linearization point</a></p></div>`,
		len(ops), vtime(lo), vtime(hi), faults)
	return b.String()
}

// illegalPoint is where the longest linearization of an illegal partition
// stops: the operations it placed, the last of them, the model's state
// after them, and the operation that cannot come next.
type illegalPoint struct {
	placed int
	last   *porcupine.Operation
	state  any
	op     porcupine.Operation
}

// stuckAt finds the longest partial linearization porcupine kept for the
// (single) partition ops, replays the model over it, and picks among the
// operations it left out the one the model refuses from that state (else
// any), earliest return first.
func stuckAt(ops []porcupine.Operation, info porcupine.LinearizationInfo) (illegalPoint, bool) {
	partials := info.PartialLinearizations()
	if len(partials) == 0 {
		return illegalPoint{}, false
	}
	var best []int
	for _, lin := range partials[0] {
		if len(lin) > len(best) {
			best = lin
		}
	}
	placed := make([]bool, len(ops))
	at := illegalPoint{placed: len(best)}
	for _, id := range best {
		if id < 0 || id >= len(ops) {
			return illegalPoint{}, false
		}
		_, at.state = modelStep(at.state, ops[id].Input, ops[id].Output)
		placed[id] = true
		at.last = &ops[id]
	}
	found, foundLegal := -1, false
	for i, op := range ops {
		if placed[i] {
			continue
		}
		legal, _ := modelStep(at.state, op.Input, op.Output)
		if found < 0 || (foundLegal && !legal) || (foundLegal == legal && op.Return < ops[found].Return) {
			found, foundLegal = i, legal
		}
	}
	if found < 0 {
		return illegalPoint{}, false
	}
	at.op = ops[found]
	return at, true
}

// allowedNext says in words what the model accepts for an operation like
// in from state: what a linearizable history allows at that point.
func allowedNext(state any, in Input) string {
	switch in.Op {
	case OpRead, OpTruth:
		s, _ := state.(turnModel)
		if s.terminal != "" {
			return fmt.Sprintf("only %s for Turn %s, which it already showed: a terminal state never changes", s.terminal, in.Turn)
		}
		var next []string
		for _, st := range []string{TurnQueued, TurnPreparing, TurnRunning, TurnCompleted, TurnFailed, TurnCancelled} {
			if TurnRank(st) >= s.rank && (st != TurnCompleted || terminalAgrees(st, s.truth)) {
				next = append(next, st)
			}
		}
		return fmt.Sprintf("only %s for Turn %s: its public state never goes back (queued, preparing, running, "+
			"then one terminal state), and completed needs a completed native turn (native settlements known: %s)",
			strings.Join(next, ", "), in.Turn, describeTruth(s.truth))
	case OpSteer, OpEnd:
		s, _ := state.(inputModel)
		next := "none is left"
		if s.pos < len(in.Log) {
			next = in.Log[s.pos]
		}
		if in.Op == OpEnd {
			return fmt.Sprintf("the end of Turn %s only once every input the Harness applied ([%s]) was claimed by a steer, "+
				"but %d of %d were", in.Turn, strings.Join(in.Log, " "), s.pos, len(in.Log))
		}
		return fmt.Sprintf("accepted or unknown for a steer of Turn %s only if its input is the next one the Harness applied "+
			"(%s; applied in order: [%s]) or one already claimed, unknown also for an input never applied, rejected always",
			in.Turn, next, strings.Join(in.Log, " "))
	default:
		s, _ := state.(fileModel)
		if !s.known {
			return "any value for a file not yet observed"
		}
		return "only " + describeFile(s.val) + ", the file's value after the last write and read placed before it"
	}
}

// jumpOnRequest follows the page's own "jump to first error" link when
// asked, scrolling at once rather than smoothly, and records where the
// point then lies.
const jumpOnRequest = `    <script>
      function turnstileJump () {
        const jump = document.querySelector('#jump-link')
        if (!jump) return
        const scroll = Element.prototype.scrollIntoView
        Element.prototype.scrollIntoView = function (opts) {
          scroll.call(this, Object.assign({}, opts, {behavior: 'instant'}))
        }
        jump.dispatchEvent(new MouseEvent('click'))
        Element.prototype.scrollIntoView = scroll
        const bad = document.querySelector('.linearization-invalid')
        if (bad) {
          const r = bad.getBoundingClientRect()
          document.body.dataset.firstErrorAt = Math.round(r.left) + ',' + Math.round(r.top)
        }
      }
      document.querySelector('#turnstile-jump').addEventListener('click', (e) => { e.preventDefault(); turnstileJump() })
      window.addEventListener('load', () => {
        if (location.hash === '#first-error') turnstileJump()
        const v = document.querySelector('#turnstile-violation').getBoundingClientRect()
        document.body.dataset.viewport = window.innerWidth + ',' + window.innerHeight
        document.body.dataset.scroll = Math.round(window.scrollX) + ',' + Math.round(window.scrollY)
        document.body.dataset.banner = Math.round(v.left) + ',' + Math.round(v.top) + ',' + Math.round(v.bottom)
      })
    </script>
  `

// span returns the first call and the last return of ops.
func span(ops []porcupine.Operation) (lo, hi int64) {
	lo, hi = ops[0].Call, ops[0].Return
	for _, op := range ops {
		lo, hi = min(lo, op.Call), max(hi, op.Return)
	}
	return lo, hi
}

// overlapping keeps the faults active during [lo, hi], clamped to it so the
// page's time axis spans only the partition.
func overlapping(faults []Fault, lo, hi int64) []Fault {
	var out []Fault
	for _, f := range faults {
		until := max(f.Until, f.At)
		if until < lo || f.At > hi {
			continue
		}
		f.At, f.Until = max(f.At, lo), min(until, hi)
		out = append(out, f)
	}
	return out
}
