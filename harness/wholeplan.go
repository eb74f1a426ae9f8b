package harness

import (
	"container/heap"
	"errors"
	"fmt"
	"iter"
	"slices"
)

// wholePlan is a run's whole plan as merge reads it: one unsharded
// plan.json, or the plan.json of every shard of a split, their cases
// interleaved by Seq. Its cases are read off the files again each time
// they are walked, so a merge of a million cases holds none of them.
type wholePlan struct {
	// plan is the plan but for Cases (nil) and what only a shard's plan
	// has (PartHash, ShardCases), unsharded.
	plan Plan
	// parts are the plans read: the shards' in index order, or the one
	// unsharded plan.
	parts []*planFile
	// shards is the split's shard count (1 for an unsharded plan).
	shards int
	cases  int
	isNil  bool
}

// openWholePlan puts a run's whole plan together from parts, each read
// and checked on its own (openPlanFile), with one Hash: either a single
// unsharded plan, or the shards of one n-way split, each once, in index
// order (a shard that has no cases may be left out). A split's plans must
// fit together: each holds the number of cases its
// plan says its shard has, every case is in the shard its id gives, each
// place in the whole plan is held by exactly one shard, and the whole
// plan hashes to Hash.
func openWholePlan(parts []*planFile) (*wholePlan, error) {
	first := parts[0].plan
	w := &wholePlan{plan: first, parts: parts, shards: max(first.Shard.Count, 1)}
	w.plan.Shard, w.plan.PartHash, w.plan.ShardCases = Shard{}, "", nil
	if first.Shard.Count <= 1 {
		w.cases, w.isNil = parts[0].cases, parts[0].isNil
		return w, nil
	}
	n := first.Shard.Count
	if len(first.ShardCases) != n {
		return nil, fmt.Errorf("%s: shard_cases has %d counts for %d shards (edited by hand?); re-run the shard", parts[0].path, len(first.ShardCases), n)
	}
	given := make([]bool, n)
	for _, pf := range parts {
		s := pf.plan.Shard
		if s.Count != n || s.Index < 1 || s.Index > n || given[s.Index-1] {
			return nil, fmt.Errorf("%s is shard %s of shards given as %d-way splits once each (merge checks that first)", pf.path, s, n)
		}
		given[s.Index-1] = true
		if !slices.Equal(pf.plan.ShardCases, first.ShardCases) {
			return nil, fmt.Errorf("%s and %s count the shards' cases differently (edited by hand?); re-run them", parts[0].path, pf.path)
		}
		if pf.cases != first.ShardCases[s.Index-1] {
			return nil, fmt.Errorf("%s lists %d cases where its shard_cases say %d (edited by hand?); re-run the shard", pf.path, pf.cases, first.ShardCases[s.Index-1])
		}
		w.cases += pf.cases
	}
	for i, ok := range given {
		if !ok && first.ShardCases[i] > 0 {
			return nil, fmt.Errorf("shard %d/%d is missing (%d cases)", i+1, n, first.ShardCases[i])
		}
	}
	h, err := hashPlan(w.plan.Versions, w.each, false)
	if err != nil {
		return nil, err
	}
	if h != first.Hash {
		return nil, fmt.Errorf("the shards' plans (%s and the rest) do not add up to the plan their hash names (edited by hand?); re-run the shards", parts[0].path)
	}
	return w, nil
}

// each is the whole plan's cases in order (planCases): a shard's cases
// come without their Seq, as an unsharded plan lists them.
func (w *wholePlan) each(fn func(pc *PlanCase) error) error {
	if w.shards <= 1 {
		return w.parts[0].each(fn)
	}
	n := w.shards
	var heads seqHeap
	for _, pf := range w.parts {
		h := &planHead{pf: pf, last: -1}
		h.next, h.stop = iter.Pull2(func(yield func(*PlanCase, error) bool) {
			errStopped := errors.New("walk stopped")
			err := pf.each(func(pc *PlanCase) error {
				if !yield(pc, nil) {
					return errStopped
				}
				return nil
			})
			if err != nil && !errors.Is(err, errStopped) {
				yield(nil, err)
			}
		})
		defer h.stop()
		if err := h.advance(n); err != nil {
			return err
		}
		if h.pc != nil {
			heads = append(heads, h)
		}
	}
	heap.Init(&heads)
	for seq := 0; len(heads) > 0; seq++ {
		h := heads[0]
		if h.pc.Seq < seq {
			return fmt.Errorf("%s: case %q is at %d of the plan, which another shard holds (edited by hand?); re-run the shards", h.pf.path, h.pc.ID, h.pc.Seq)
		}
		if h.pc.Seq != seq {
			return fmt.Errorf("%s: no shard lists case %d of the plan (%s lists %d next; edited by hand?); re-run the shards", h.pf.path, seq, h.pf.path, h.pc.Seq)
		}
		pc := *h.pc
		pc.Seq = 0
		if err := fn(&pc); err != nil {
			return err
		}
		if err := h.advance(n); err != nil {
			return err
		}
		if h.pc != nil {
			heap.Fix(&heads, 0)
		} else {
			heap.Pop(&heads)
		}
	}
	return nil
}

// planHead is the next case of one shard's plan in a walk of the whole.
type planHead struct {
	pf   *planFile
	next func() (*PlanCase, error, bool)
	stop func()
	pc   *PlanCase // nil once the shard's cases are all walked
	last int       // the Seq before pc's
}

// advance moves h to its shard's next case, which must come later in the
// whole plan than the one before and belong to the shard by its id.
func (h *planHead) advance(shards int) error {
	pc, err, ok := h.next()
	if err != nil {
		return err
	}
	if !ok {
		h.pc = nil
		return nil
	}
	s := h.pf.plan.Shard
	if pc.Seq <= h.last {
		return fmt.Errorf("%s: case %q comes at %d of the plan, after %d (edited by hand?); re-run the shard", h.pf.path, pc.ID, pc.Seq, h.last)
	}
	if got := shardIndexOf(pc.ID, shards); got != s.Index {
		return fmt.Errorf("%s: case %q belongs to shard %d/%d, not %s (edited by hand?); re-run the shard", h.pf.path, pc.ID, got, shards, s)
	}
	h.pc, h.last = pc, pc.Seq
	return nil
}

// seqHeap orders shards' next cases by their place in the whole plan.
type seqHeap []*planHead

func (h seqHeap) Len() int           { return len(h) }
func (h seqHeap) Less(i, j int) bool { return h[i].pc.Seq < h[j].pc.Seq }
func (h seqHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *seqHeap) Push(x any)        { *h = append(*h, x.(*planHead)) }
func (h *seqHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
