package harness

import (
	"bufio"
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
)

// Merger is a merge of shards checked and ready to write (PrepareMerge):
// it holds, per shard, where each kept result sits in its results.jsonl
// and its place in the plan (16 bytes a result), never the results. The
// merged file is then written in one k-way pass over the shards.
type Merger struct {
	// plan is the run's plan without its cases, which planFile reads off
	// the shards' plan.json again whenever they are walked.
	plan     Plan
	planFile *wholePlan
	// walked says the shards were checked in one walk of the plan (as run
	// writes them), not indexed.
	walked bool
	runs   []mergeRun
	count  int
}

// Versions are the run's versions as its plan records them.
func (m *Merger) Versions() []PlanVersion { return m.plan.Versions }

// WritePlan writes the merged run's plan.json: the shards' plan, whole and
// unsharded, so the merged directory can be merged or resumed like a run.
func (m *Merger) WritePlan(path string) error {
	return writePlan(path, m.plan, m.planFile.each, m.planFile.isNil)
}

type mergeRun struct {
	dir    string
	stream *FileStream
	kept   []mergeItem
	// found is the results file as PrepareMerge found it before reading
	// it (nil when it is not a regular file: a pipe is read once, into a
	// spool). WriteTo refuses one changed since: the kept positions would
	// then point at other results, merged unchecked.
	found os.FileInfo
}

// mergeItem is a kept result: its rank in plan order (version, then
// case) and its position in its shard's stream.
type mergeItem struct {
	rank int64
	pos  int
}

// Count is the number of results the merge writes.
func (m *Merger) Count() int { return m.count }

// PrepareMerge checks that the runs at paths (output directories, or
// results.jsonl files with plan.json beside them) are the shards of one
// complete run: the same plan (versions, fingerprints and cases), shard
// i/n each exactly once (one with no cases may be left out), and in each
// shard exactly the (version, case) pairs its plan gives it. Otherwise
// the error lists every shard and case missing, duplicated, foreign or
// stale, so the person can re-run exactly those. It reads each results
// file once and keeps only positions.
//
// Each shard's plan.json lists the shard's own cases with their places in
// the whole plan; the whole plan is put together from them as a k-way
// merge of the files (wholePlan), read off them again each time it is
// walked, and checked against the hash they share. Shards as run writes
// them (each results file in plan order, every result the plan gives it
// and no other) are checked in one walk of the whole plan a version, each
// shard's results pulled in step: memory holds the positions, not the
// plan (132 MB of case ids and hashes for a million cases) or a map of
// it. Anything else (a shard missing, repeated, foreign, stale or out of
// order) is indexed instead: each shard's results looked up by (version,
// case) in its own plan.
func PrepareMerge(paths []string) (*Merger, error) {
	if len(paths) == 0 {
		return nil, errors.New("merge: no runs given")
	}
	dirs := make([]string, len(paths))
	files := make([]string, len(paths))
	for i, path := range paths {
		dirs[i], files[i] = path, filepath.Join(path, ResultsFile)
		if info, err := os.Stat(path); err == nil && !info.IsDir() {
			dirs[i], files[i] = filepath.Dir(path), path
		}
	}
	// One stream a shard for both ways: a results file that is a pipe is
	// spooled by its first read and cannot be opened again.
	streams := make([]*FileStream, len(paths))
	found := make([]os.FileInfo, len(paths))
	for i, file := range files {
		streams[i] = NewFileStream(file)
		if info, err := os.Stat(file); err == nil && info.Mode().IsRegular() {
			found[i] = info
		}
	}
	m, err := prepareInPlanOrder(paths, dirs, files, streams)
	if m == nil && err == nil {
		m, err = prepareIndexed(paths, dirs, files, streams)
	}
	if err != nil {
		return nil, err
	}
	for i := range m.runs { // in the order of paths, either way
		m.runs[i].found = found[i]
	}
	return m, nil
}

// errNotInPlanOrder stops the walk of prepareInPlanOrder.
var errNotInPlanOrder = errors.New("the shards are not as run writes them")

// prepareInPlanOrder is PrepareMerge's walk of the plan (see there); nil
// and no error when the shards are not as run writes them.
func prepareInPlanOrder(paths, dirs, files []string, streams []*FileStream) (*Merger, error) {
	runs := make([]RunOutput, len(paths))
	parts := make([]*planFile, len(paths))
	for i := range paths {
		pf, err := openPlanFile(filepath.Join(dirs[i], PlanFile))
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if i > 0 && pf.plan.Hash != parts[0].plan.Hash {
			return nil, nil // the indexed way says how they differ
		}
		runs[i], parts[i] = RunOutput{Dir: paths[i], Plan: pf.plan}, pf
	}
	for _, file := range files {
		if _, err := os.Stat(file); err != nil {
			return nil, fmt.Errorf("merge: read results: %w", err)
		}
	}
	if len(shardCoverage(runs)) > 0 {
		return nil, nil
	}
	whole, err := openWholePlan(inShardOrder(parts))
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	count := runs[0].Plan.Shard.Count
	runOf := map[int]int{} // shard index -> run
	for i, r := range runs {
		runOf[r.Plan.Shard.Index] = i
	}
	m := &Merger{plan: whole.plan, planFile: whole, walked: true, runs: make([]mergeRun, len(runs))}
	pulls := make([]*resultPull, len(runs))
	for i := range runs {
		m.runs[i] = mergeRun{dir: runs[i].Dir, stream: streams[i]}
		pulls[i] = pullResults(m.runs[i].stream)
		defer pulls[i].stop()
	}
	for vi, v := range whole.plan.Versions {
		seq := -1
		err := whole.each(func(pc *PlanCase) error {
			seq++
			if len(pc.Versions) > 0 && !slices.Contains(pc.Versions, vi) {
				return nil
			}
			shard := runs[0].Plan.Shard.Index
			if count > 1 {
				shard = shardIndexOf(pc.ID, count)
			}
			i, ok := runOf[shard]
			if !ok {
				return errNotInPlanOrder
			}
			pos, r, ok := pulls[i].next()
			if !ok || r.Version != v.ID || r.Case != pc.ID || r.CaseHash != pc.Hash {
				return errNotInPlanOrder
			}
			m.runs[i].kept = append(m.runs[i].kept, mergeItem{int64(vi)*int64(whole.cases) + int64(seq), pos})
			m.count++
			return nil
		})
		if errors.Is(err, errNotInPlanOrder) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
	}
	for _, p := range pulls {
		if _, _, more := p.next(); more || p.err != nil {
			return nil, nil
		}
	}
	return m, nil
}

// inShardOrder is parts sorted by shard index (parts of one split, each
// shard once, or one unsharded plan).
func inShardOrder(parts []*planFile) []*planFile {
	out := slices.Clone(parts)
	slices.SortFunc(out, func(a, b *planFile) int { return cmp.Compare(a.plan.Shard.Index, b.plan.Shard.Index) })
	return out
}

// resultPull reads a stream's results one at a time, on demand.
type resultPull struct {
	next func() (int, *Result, bool)
	stop func()
	// err is what ended the read early (a bad line, a read error).
	err error
}

func pullResults(rs *FileStream) *resultPull {
	p := &resultPull{}
	p.next, p.stop = iter.Pull2(func(yield func(int, *Result) bool) {
		errStopped := errors.New("pull stopped")
		err := rs.Each(func(i int, r *Result) error {
			if !yield(i, r) {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			p.err = err
		}
	})
	return p
}

// prepareIndexed is PrepareMerge for shards not as run writes them: each
// shard's results are looked up by (version, case) in its own plan.
func prepareIndexed(paths, dirs, files []string, streams []*FileStream) (*Merger, error) {
	runs := make([]RunOutput, len(paths))
	parts := make([]*planFile, len(paths))
	for i, path := range paths {
		pf, err := openPlanFile(filepath.Join(dirs[i], PlanFile))
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if _, err := os.Stat(files[i]); err != nil {
			return nil, fmt.Errorf("merge: read results: %w", err)
		}
		runs[i], parts[i] = RunOutput{Dir: path, Plan: pf.plan}, pf
	}
	if err := samePlan(runs, parts); err != nil {
		return nil, err
	}
	problems := shardCoverage(runs)
	cases := planSize(parts[0])
	m := &Merger{}
	for i, run := range runs {
		want, err := parts[i].ownPairs(int64(cases))
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		mr := mergeRun{dir: run.Dir, stream: streams[i]}
		errs, err := checkShardStream(run, &mr, want)
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		problems = append(problems, errs...)
		m.count += len(mr.kept)
		m.runs = append(m.runs, mr)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("merge: the runs are not one complete run:\n  %w", joinIndented(problems))
	}
	whole, err := openWholePlan(inShardOrder(parts))
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	m.plan, m.planFile = whole.plan, whole
	return m, nil
}

// ownPairs lists the (version, case) pairs the plan in pf gives its run,
// in plan order (version, then case), with each case's hash and place in
// the whole plan: a shard's own cases, or every case of an unsharded plan.
func (pf *planFile) ownPairs(cases int64) ([]planPair, error) {
	var own []PlanCase
	err := pf.each(func(pc *PlanCase) error {
		own = append(own, *pc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sharded := pf.plan.Shard.Count > 1
	var out []planPair
	for vi, v := range pf.plan.Versions {
		for i, c := range own {
			if len(c.Versions) > 0 && !slices.Contains(c.Versions, vi) {
				continue
			}
			seq := i
			if sharded {
				seq = c.Seq
			}
			out = append(out, planPair{key: pairKey{v.ID, c.ID}, hash: c.Hash, rank: int64(vi)*cases + int64(seq)})
		}
	}
	return out, nil
}

// checkShardStream is checkShard reading the shard's results file once:
// it keeps the positions of the results to merge, with their plan rank.
func checkShardStream(run RunOutput, mr *mergeRun, want []planPair) ([]error, error) {
	wantOf := make(map[pairKey]planPair, len(want))
	for _, p := range want {
		wantOf[p.key] = p
	}
	seen := make(map[pairKey]int, len(want))
	var dups, foreign, stale []string
	err := mr.stream.Each(func(i int, r *Result) error {
		k := pairKey{r.Version, r.Case}
		seen[k]++
		name := r.Case + " under " + r.Version
		w, ok := wantOf[k]
		switch {
		case !ok:
			foreign = append(foreign, name)
		case seen[k] > 1:
			if seen[k] == 2 {
				dups = append(dups, name)
			}
		case r.CaseHash != w.hash:
			stale = append(stale, name)
		default:
			mr.kept = append(mr.kept, mergeItem{w.rank, i})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, p := range want {
		if seen[p.key] == 0 {
			missing = append(missing, p.key.caseID+" under "+p.key.version)
		}
	}
	return shardProblems(run, len(want), missing, dups, foreign, stale), nil
}

// WriteTo writes the merged results to path (replaced whole), in plan
// order: a k-way merge of the shards, each read front to back once (a
// shard whose file is not in plan order is read by position instead).
// Lines are encoded as WriteResultsFile encodes them.
func (m *Merger) WriteTo(path string) error {
	return writeAtomic(path, func(w io.Writer) error {
		if err := m.unchanged(); err != nil {
			return err
		}
		bw := bufio.NewWriterSize(w, 1<<16)
		var cursors mergeHeap
		for i := range m.runs {
			c, err := newMergeCursor(&m.runs[i])
			if err != nil {
				return err
			}
			defer c.stop()
			if ok, err := c.next(); err != nil {
				return err
			} else if ok {
				cursors = append(cursors, c)
			}
		}
		heap.Init(&cursors)
		for len(cursors) > 0 {
			c := cursors[0]
			line, err := encodeResult(&c.result)
			if err != nil {
				return err
			}
			_, err = bw.Write(line.b)
			line.release()
			if err != nil {
				return err
			}
			ok, err := c.next()
			if err != nil {
				return err
			}
			if ok {
				heap.Fix(&cursors, 0)
			} else {
				heap.Pop(&cursors)
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		// Checked again at the end: the merged file replaces path only
		// when every shard stayed as checked while it was read.
		return m.unchanged()
	})
}

// unchanged says every shard's results file is as PrepareMerge found it
// (its size and modification time).
func (m *Merger) unchanged() error {
	for _, r := range m.runs {
		if r.found == nil {
			continue
		}
		now, err := os.Stat(r.stream.Path)
		if err != nil || now.Size() != r.found.Size() || !now.ModTime().Equal(r.found.ModTime()) {
			return fmt.Errorf("merge: %s changed since merge checked it; merge again once nothing writes to the shards", r.stream.Path)
		}
	}
	return nil
}

// mergeCursor walks one shard's kept results in plan order.
type mergeCursor struct {
	run    *mergeRun
	k      int // next kept item
	rank   int64
	result Result
	// pull reads the shard front to back when its kept results are in
	// plan order already (as a run writes them); pullErr is what stopped
	// the read.
	pull    func() (mergeItem, *Result, bool)
	pullErr error
	stop    func()
}

func newMergeCursor(run *mergeRun) (*mergeCursor, error) {
	c := &mergeCursor{run: run, stop: func() {}}
	slices.SortStableFunc(run.kept, func(a, b mergeItem) int { return cmp.Compare(a.rank, b.rank) })
	inOrder := slices.IsSortedFunc(run.kept, func(a, b mergeItem) int { return a.pos - b.pos })
	if !inOrder {
		return c, nil
	}
	errStopped := errors.New("merge stopped")
	seq := func(yield func(mergeItem, *Result) bool) {
		k := 0
		err := run.stream.Each(func(i int, r *Result) error {
			if k >= len(run.kept) || run.kept[k].pos != i {
				return nil
			}
			if !yield(run.kept[k], r) {
				return errStopped
			}
			k++
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			c.pullErr = err
		}
	}
	c.pull, c.stop = iter.Pull2(seq)
	return c, nil
}

// next moves to the cursor's next result; false when it has none.
func (c *mergeCursor) next() (bool, error) {
	if c.k >= len(c.run.kept) {
		return false, nil
	}
	if c.pull != nil {
		it, r, ok := c.pull()
		if c.pullErr != nil {
			return false, fmt.Errorf("merge: %w", c.pullErr)
		}
		if !ok {
			return false, fmt.Errorf("merge: %s changed while it was merged", c.run.stream.Path)
		}
		c.k++
		c.rank, c.result = it.rank, *r
		return true, nil
	}
	it := c.run.kept[c.k]
	c.k++
	c.rank = it.rank
	return true, c.run.stream.Read([]int{it.pos}, func(_ int, r *Result) error {
		c.result = *r
		return nil
	})
}

// mergeHeap orders cursors by the rank of their current result.
type mergeHeap []*mergeCursor

func (h mergeHeap) Len() int           { return len(h) }
func (h mergeHeap) Less(i, j int) bool { return h[i].rank < h[j].rank }
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(*mergeCursor)) }
func (h *mergeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
