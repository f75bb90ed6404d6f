package check

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"time"

	"github.com/anishathalye/porcupine"
)

// The visualization of an illegal history is made to be read on its own:
// it holds only the first partition that has no linearization (a campaign
// history has hundreds, and porcupine lays all of them side by side), only
// the fault annotations that overlap it, a heading naming it, and a script
// that scrolls to its first illegal linearization point when the page
// opens.

// visualizeIllegal writes the visualization of partition part (its
// operations ops) to w.
func visualizeIllegal(w io.Writer, part string, ops []porcupine.Operation, faults []FaultEvent,
	timeout time.Duration) error {
	model := Model()
	_, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	lo, hi := span(ops)
	info.AddAnnotations(faultAnnotations(overlapping(faults, lo, hi)))
	var b bytes.Buffer
	if err := porcupine.Visualize(model, info, &b); err != nil {
		return err
	}
	page := b.Bytes()
	heading := fmt.Sprintf(`<h1 id="turnstile-partition">`+
		`Not linearizable: %s (%d operations, %s to %s; faults overlapping it shown as annotations)</h1>`,
		html.EscapeString(part), len(ops), vtime(lo), vtime(hi))
	page = bytes.Replace(page, []byte("</style>"), []byte(headingStyle+"</style>"), 1)
	page = bytes.Replace(page, []byte("<body>"), []byte("<body>\n    "+heading), 1)
	page = bytes.Replace(page, []byte("<title>Porcupine</title>"),
		[]byte("<title>"+html.EscapeString(part)+" not linearizable</title>"), 1)
	page = bytes.Replace(page, []byte("</body>"), []byte(jumpOnOpen+"</body>"), 1)
	_, err := w.Write(page)
	return err
}

// headingStyle keeps the heading in view under the page's fixed legend.
const headingStyle = `
      #turnstile-partition { position: fixed; left: 10px; top: 40px; margin: 0; padding: 2px 4px;
        font: bold 14px Helvetica, Arial, sans-serif; background: rgba(255, 255, 255, 0.8); }
      #canvas { margin-top: 70px; }
    `

// jumpOnOpen follows the page's own "jump to first error" link once it has
// rendered, scrolling at once rather than smoothly, so the page opens at the
// first illegal linearization point.
const jumpOnOpen = `    <script>
      window.addEventListener('load', () => {
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
          document.body.dataset.viewport = window.innerWidth + ',' + window.innerHeight
        }
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
func overlapping(faults []FaultEvent, lo, hi int64) []FaultEvent {
	var out []FaultEvent
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
