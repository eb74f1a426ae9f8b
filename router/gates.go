package router

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/routebench/routebench/router/registry"
)

// batchOver is the item count above which a side-effect call takes the
// batch gate whatever the skill's own label says (DESIGN §2): the blast
// radius, not the author's guess, decides how careful a confirmation is.
const batchOver = 10

// sampleItems is how many items a confirmation names.
const sampleItems = 3

// blast is how many items one call touches and a few of them to show.
type blast struct {
	count   int
	known   bool
	samples []string
	// more is set when the list holds items beyond the samples.
	more bool
	// how says where the count came from, for the trace.
	how string
}

// blastRadius counts a call's items: the skill's x-affects when it has one,
// else the length of its largest list param, else 1. Samples come from the
// largest list param either way. An x-affects that fails leaves the count
// unknown, which gates like a batch: fail closed.
func blastRadius(s *registry.Skill, params map[string]any, rt *routing) blast {
	name, list := largestList(params)
	b := blast{count: 1, known: true, how: "one item: no list param"}
	if name != "" {
		b.count = len(list)
		b.how = fmt.Sprintf("%d items in list param %s", len(list), name)
	}
	for _, it := range list[:min(sampleItems, len(list))] {
		b.samples = append(b.samples, sampleText(it))
	}
	b.more = len(list) > sampleItems
	if s.Affects != nil {
		n, err := s.Affects.Count(numericForRules(s, params), rt.now)
		if err != nil {
			b.known, b.count = false, 0
			b.how = fmt.Sprintf("count unknown: %v", err)
			return b
		}
		b.count = n
		b.how = fmt.Sprintf("%d items by x-affects %s", n, s.Affects.Expr)
		b.more = n > len(b.samples)
	}
	return b
}

// largestList is the top-level list param with the most items, the first
// by name on a tie so the choice never depends on map order.
func largestList(params map[string]any) (string, []any) {
	var room [8]string
	names := room[:0]
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	best, bestList := "", []any(nil)
	for _, k := range names {
		if l, ok := params[k].([]any); ok && (best == "" || len(l) > len(bestList)) {
			best, bestList = k, l
		}
	}
	return best, bestList
}

// sampleText shows one list item: a string as written, anything else as
// compact JSON, cut short so one odd item cannot flood the message.
func sampleText(v any) string {
	s, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		s = string(b)
	}
	const maxRunes = 40
	if r := []rune(s); len(r) > maxRunes {
		s = string(r[:maxRunes-1]) + "…"
	}
	return s
}

// sampleList is "a, b, c, …" for a message.
func (b blast) sampleList() string {
	out := slices.Clone(b.samples)
	if b.more {
		out = append(out, "…")
	}
	return strings.Join(out, ", ")
}

// items is "27 items (a, b, c, …)".
func (b blast) items() string {
	noun := "items"
	if b.count == 1 {
		noun = "item"
	}
	if len(b.samples) == 0 {
		return fmt.Sprintf("%d %s", b.count, noun)
	}
	return fmt.Sprintf("%d %s (%s)", b.count, noun, b.sampleList())
}

// confirmGate settles a confirm decision's gate from the skill's label and
// the call's blast radius, and records why in a "gate" trace step. An
// irreversible skill acts on one item per call: more than one, or a count
// that cannot be worked out, is refused rather than confirmed.
func (rt *routing) confirmGate(s *registry.Skill, params map[string]any) {
	label := gateOf(s)
	b := blastRadius(s, params, rt)
	step := TraceStep{Stage: "gate", Choice: s.Name}
	switch {
	case label == registry.GateIrreversible && (!b.known || b.count > 1):
		step.Note = fmt.Sprintf("%s; irreversible skills act on one item per call -> refused", b.how)
		rt.trace(step)
		if !b.known {
			rt.refuse(fmt.Sprintf("%s cannot be undone, so it must be done one item at a time, and how many items this call affects could not be worked out (%s); nothing was run.", s.Name, b.how))
			return
		}
		rt.refuse(fmt.Sprintf("%s cannot be undone, so it must be done one item at a time; this call would affect %s. Ask for each one separately; nothing was run.", s.Name, b.items()))
		return
	case !b.known:
		rt.d.Gate = registry.GateBatch
		step.Note = fmt.Sprintf("%s -> batch (fail closed)", b.how)
		rt.d.Message = fmt.Sprintf("%s changes things (%s), and how many items it affects could not be worked out; confirm to go on (batch gate).", s.Name, s.SideEffect)
	case b.count > batchOver && label != registry.GateIrreversible:
		rt.d.Gate = registry.GateBatch
		step.Note = fmt.Sprintf("count: %s, more than %d -> batch (the skill's label is %s)", b.how, batchOver, label)
		rt.d.Message = fmt.Sprintf("%s changes things (%s): this will affect %s; confirm to go on (batch gate).", s.Name, s.SideEffect, b.items())
	default:
		// The usual confirmation, written without fmt: fmt.Sprintf("label:
		// the skill's confirm is %s (%s, at most %d -> the label stands)",
		// label, b.how, batchOver) and fmt.Sprintf("%s changes things (%s);
		// confirm to run it (%s gate).", s.Name, s.SideEffect, rt.d.Gate).
		// Both in one string.
		rt.d.Gate = label
		b2 := make([]byte, 0, 144+len(b.how)+len(s.Name))
		b2 = append(b2, "label: the skill's confirm is "...)
		b2 = append(b2, label...)
		b2 = append(b2, " ("...)
		b2 = append(b2, b.how...)
		b2 = append(b2, ", at most "...)
		b2 = strconv.AppendInt(b2, batchOver, 10)
		b2 = append(b2, " -> the label stands)"...)
		noteEnd := len(b2)
		b2 = append(b2, s.Name...)
		b2 = append(b2, " changes things ("...)
		b2 = append(b2, s.SideEffect...)
		b2 = append(b2, "); confirm to run it ("...)
		b2 = append(b2, rt.d.Gate...)
		b2 = append(b2, " gate)."...)
		both := string(b2)
		step.Note, rt.d.Message = both[:noteEnd], both[noteEnd:]
	}
	rt.d.Action = Confirm
	rt.trace(step)
}
