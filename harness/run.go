package harness

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
	"github.com/routebench/routebench/workflow"
)

// Router routes one request; *router.Router satisfies it. Route must be
// safe for concurrent use.
type Router interface {
	Route(ctx context.Context, req router.Request) (router.Decision, error)
}

// RunConfig says what to run and where to write it.
type RunConfig struct {
	// Versions run in this order; results keep it.
	Versions []*registry.Version
	// Cases run in this order for each version; results keep it.
	Cases []Case
	// Source, when set, gives the cases instead of Cases: OpenSuites's,
	// which reads a large suite set again for each version rather than
	// hold it.
	Source CaseSource
	// NewRouter builds a version's router, normally router.New with the
	// models its version.yaml names. It is given the version with its
	// workflows routable beside its skills (RoutingVersion), under the
	// same ID.
	NewRouter func(v *registry.Version) (Router, error)
	// SuitePaths are the suite files or directories Cases came from,
	// recorded in plan.json for `replay`; optional.
	SuitePaths []string
	// Include, when set, selects (version, case) pairs, e.g. a label filter.
	Include func(v *registry.Version, c *Case) bool
	Shard   Shard
	// Concurrency is the number of cases routed at once; 0 means one per CPU.
	Concurrency int
	// OutDir receives results.jsonl and plan.json. Run does not lock it:
	// the caller holds outdir.Acquire(OutDir) for as long as it writes
	// there (the run and its reports), so two writers cannot interleave.
	OutDir string
	// Resume keeps the results already in OutDir whose (version, case,
	// case hash) is still planned and runs only the rest; provider errors
	// are run again.
	Resume bool
	// Progress, when set, is called with the cases done (resumed ones
	// included) and planned: once before the first case is routed, then
	// after each case. Calls come from one goroutine.
	Progress func(done, total int)
	// KeepResults puts every result in RunOutcome.Results. A run does not
	// need them: results.jsonl holds them and reports stream it, so
	// without this the run's memory does not grow with its cases.
	KeepResults bool
	// Written, when set, is handed each result as its line is written,
	// in file order (i counts lines from 0, as FileStream.Each does), so a
	// reader scores the run while it routes instead of reading the file
	// back after. It is called only when this run writes results.jsonl
	// from its first line (Resume kept nothing), and only while the lines
	// go in plan order: RunOutcome.Stream says whether every line was
	// handed on. r is what decoding the line gives (the routed result
	// itself when its line reads back as it, else the line decoded), and
	// may be kept. Calls come from the goroutine that writes the file: a
	// slow Written holds routing back, by at most the reorder window.
	Written func(i int, r *Result)
}

// RunOutcome is what a run produced.
type RunOutcome struct {
	// Results holds every planned result that is done, in plan order
	// (version order, then case order), when RunConfig.KeepResults asks
	// for them; otherwise nil (read OutDir/results.jsonl).
	Results []Result
	// Done counts the planned results that are done (in results.jsonl).
	Done    int
	Planned int
	// Resumed results were kept from an earlier run; Ran were routed now.
	Resumed, Ran int
	// ProviderErrors counts results whose decision is a provider error.
	ProviderErrors int
	// Notes say what the run repaired on its way (a torn last line
	// dropped on resume), for the person running it.
	Notes []string
	// Stream is results.jsonl, already indexed and digested (Digest),
	// when the run finished and RunConfig.Written was handed every line
	// of it in order: its readers need no pass of their own over the
	// file. Otherwise nil.
	Stream *FileStream
}

// ErrInterrupted is returned (wrapped) when the context is cancelled
// mid-run; every case finished by then is in results.jsonl.
var ErrInterrupted = errors.New("run interrupted")

// job is one (version, case) of the plan to route.
type job struct {
	seq  int // in the order jobs are handed out (plan order)
	pos  int // in the plan
	v, i int // version and case
	c    *Case
}

// finished is a routed job, encoded by its worker so the single writer
// only copies bytes.
type finished struct {
	seq, pos      int
	line          *encodedLine // released once written
	res           *Result      // for RunConfig.Written: what the line reads back as
	providerError bool
	err           error
}

// lineSpan is where a planned result's line is in results.jsonl; n == 0
// while it is not done. A run keeps these (12 bytes a result), not results.
type lineSpan struct {
	off int64
	n   int32
}

// Run routes every planned (version, case) and appends each result to
// OutDir/results.jsonl as soon as every earlier one is written, so the file
// is in plan order whatever the concurrency, and an interrupted run loses
// nothing it finished. Provider errors are results, not run errors: the
// caller decides the exit code from RunOutcome.ProviderErrors.
func Run(ctx context.Context, cfg RunConfig) (*RunOutcome, error) {
	if cfg.NewRouter == nil {
		return nil, errors.New("run: no router factory")
	}
	if err := cfg.Shard.check(); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	routers := make([]Router, len(cfg.Versions))
	flows := make([]*VersionWorkflows, len(cfg.Versions))
	for i, v := range cfg.Versions {
		vw, err := PrepareWorkflows(v)
		if err != nil {
			return nil, fmt.Errorf("workflows of %s: %w", v.ID(), err)
		}
		flows[i] = vw
		rt, err := cfg.NewRouter(vw.RoutingVersion(v))
		if err != nil {
			return nil, fmt.Errorf("build router for %s: %w", v.ID(), err)
		}
		routers[i] = rt
	}
	plan, err := newPlanSet(cfg)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	path := filepath.Join(cfg.OutDir, ResultsFile)

	out := &RunOutcome{Planned: plan.n}
	spans := make([]lineSpan, plan.n)
	var end int64 // results.jsonl's length as this run writes it
	if cfg.Resume {
		var err error
		if out.Resumed, end, err = resumeFrom(path, cfg, plan, spans, &out.Notes); err != nil {
			return nil, err
		}
	}
	// Written before any result, so every shard directory, even one cut
	// short, says which run it is part of.
	if err := writePlanOf(filepath.Join(cfg.OutDir, PlanFile), cfg, plan); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	// Kept results form a prefix of the plan after an ordinary interruption;
	// otherwise the file is rewritten in plan order at the end.
	toRun, gaps := 0, false
	for i := range spans {
		if spans[i].n == 0 {
			toRun++
		} else if toRun > 0 {
			gaps = true
		}
	}

	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if cfg.Resume {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	w := &spanWriter{w: bufio.NewWriterSize(f, 1<<16), off: end}
	// Results are handed on as they are written only when the file is
	// this run's from its first line; the digest is then taken from the
	// bytes written.
	live := cfg.Written != nil && out.Resumed == 0 && end == 0
	if live {
		w.digest = sha256.New()
	}
	ran, handed, runErr := route(ctx, cfg, routers, flows, plan, toRun, spans, w, live, &out.ProviderErrors)
	// On disk before a summary can name these results.
	if err := f.Sync(); err != nil && runErr == nil {
		runErr = fmt.Errorf("write results: %w", err)
	}
	if err := f.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("write results: %w", err)
	}
	out.Ran = ran
	out.Done = out.Resumed + ran
	if gaps && runErr == nil {
		if err := rewriteInPlanOrder(path, spans); err != nil {
			return out, err
		}
	}
	if live && runErr == nil && handed == out.Planned {
		out.Stream = writtenStream(path, spans, w)
	}
	if cfg.KeepResults {
		if out.Results, err = readSpans(path, spans); err != nil && runErr == nil {
			runErr = err
		}
	}
	return out, runErr
}

// spanWriter writes results.jsonl lines and says where each one went;
// with a digest, it also hashes every byte written, as
// DigestResultsFile would hash the file.
type spanWriter struct {
	w      *bufio.Writer
	off    int64
	digest hash.Hash
	lines  int
}

func (s *spanWriter) write(line []byte) (lineSpan, error) {
	_, err := s.w.Write(line)
	if s.digest != nil {
		s.digest.Write(line)
		s.lines++ // a line always ends in its newline
	}
	sp := lineSpan{off: s.off, n: int32(len(line))}
	s.off += int64(len(line))
	return sp, err
}

// writtenStream is the results file a run wrote from its first line in
// plan order, every planned result done: spans give where each line
// starts, w its length and digest.
func writtenStream(path string, spans []lineSpan, w *spanWriter) *FileStream {
	offsets := make([]int64, 0, len(spans)+1)
	for _, sp := range spans {
		offsets = append(offsets, sp.off)
	}
	offsets = append(offsets, w.off)
	digest := ResultsDigest{SHA256: hex.EncodeToString(w.digest.Sum(nil)), Lines: w.lines}
	return &FileStream{Path: path, offsets: offsets, indexed: true, digesting: true, digest: &digest}
}

// rewriteInPlanOrder replaces results.jsonl with its lines in plan order,
// copying each line's bytes: one line in memory at a time. spans then say
// where the lines are in the new file.
func rewriteInPlanOrder(path string, spans []lineSpan) error {
	src, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	defer src.Close()
	err = writeAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		var buf []byte
		var off int64
		for i, sp := range spans {
			if sp.n == 0 {
				continue
			}
			buf = slices.Grow(buf[:0], int(sp.n))[:sp.n]
			if _, err := src.ReadAt(buf, sp.off); err != nil {
				return err
			}
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			spans[i].off = off
			off += int64(sp.n)
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// readSpans decodes the done results in plan order (RunConfig.KeepResults).
func readSpans(path string, spans []lineSpan) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	var out []Result
	var buf []byte
	dec := getDecoder()
	defer putDecoder(dec)
	for _, sp := range spans {
		if sp.n == 0 {
			continue
		}
		buf = slices.Grow(buf[:0], int(sp.n))[:sp.n]
		if _, err := f.ReadAt(buf, sp.off); err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		var r Result
		if err := dec.decode(buf, &r, false); err != nil {
			return nil, fmt.Errorf("read results %s: %w", path, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// planSet is which (version, case) pairs a run plans, without a list of
// them (a million cases are a million pairs a version): a bit a case for
// the shard and, under a label filter, a bit a case and version.
type planSet struct {
	src      CaseSource
	versions int
	// included[v] has case i's bit set when the label filter takes (v, i);
	// nil when there is no filter.
	included [][]uint64
	// inShard has case i's bit set when the case is in the shard; nil
	// when the run is not sharded.
	inShard []uint64
	n       int // pairs planned
}

func (cfg *RunConfig) source() CaseSource {
	if cfg.Source != nil {
		return cfg.Source
	}
	return CaseList(cfg.Cases)
}

func newPlanSet(cfg RunConfig) (*planSet, error) {
	src := cfg.source()
	p := &planSet{src: src, versions: len(cfg.Versions)}
	words := (src.Len() + 63) / 64
	if cfg.Shard.Count > 1 {
		p.inShard = make([]uint64, words)
		err := src.Keys(func(i int, id, _ string) error {
			if cfg.Shard.Has(id) {
				setBit(p.inShard, i)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if cfg.Include != nil {
		p.included = make([][]uint64, len(cfg.Versions))
		for v := range p.included {
			p.included[v] = make([]uint64, words)
		}
		err := src.Each(func(i int, c *Case) error {
			for v, version := range cfg.Versions {
				if cfg.Include(version, c) {
					setBit(p.included[v], i)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	p.walk(func(int, int, int) { p.n++ })
	return p, nil
}

func setBit(bits []uint64, i int)      { bits[i/64] |= 1 << (i % 64) }
func hasBit(bits []uint64, i int) bool { return bits[i/64]&(1<<(i%64)) != 0 }

// includes says whether the label filter takes (version v, case i),
// whatever the shard.
func (p *planSet) includes(v, i int) bool { return p.included == nil || hasBit(p.included[v], i) }

// has says whether (version v, case i) is planned.
func (p *planSet) has(v, i int) bool {
	return p.includes(v, i) && (p.inShard == nil || hasBit(p.inShard, i))
}

// walk calls fn with each planned pair in plan order and its position.
func (p *planSet) walk(fn func(pos, v, i int)) {
	pos := 0
	for v := range p.versions {
		for i := range p.src.Len() {
			if p.has(v, i) {
				fn(pos, v, i)
				pos++
			}
		}
	}
}

// walkKeys is walk with each case's id and hash, read off the source once
// a version; it stops at fn's first error.
func (p *planSet) walkKeys(fn func(pos, v, i int, id, hash string) error) error {
	pos := 0
	for v := range p.versions {
		err := p.src.Keys(func(i int, id, hash string) error {
			if !p.has(v, i) {
				return nil
			}
			pos++
			return fn(pos-1, v, i, id, hash)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// resumeFrom marks the planned jobs results.jsonl already holds and
// rewrites the file with exactly those, in plan order: a torn last line
// (the process was killed mid-write) is dropped with a note, results of
// changed cases and results no longer planned are dropped, and provider
// errors are routed again (an outage is what --resume is for). Any other
// unreadable line is a *ResultsError: the file is not this run's to
// repair. It reads the file twice, once for where each result is and once
// to copy the kept ones, holding one result at a time; end is the length
// of the rewritten file.
func resumeFrom(path string, cfg RunConfig, plan *planSet, spans []lineSpan, notes *[]string) (kept int, end int64, err error) {
	src, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("resume: read results: %w", err)
	}
	defer src.Close()
	type key struct{ version, id, hash string }
	type found struct {
		span          lineSpan
		providerError bool
	}
	have := map[key]found{}
	torn, err := scanResults(src, path, func(r *Result, line []byte, offset int64) error {
		// The last of duplicates wins, as it always did.
		have[key{r.Version, r.Case, r.CaseHash}] = found{lineSpan{offset, int32(len(line))}, HasProviderError(*r)}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("resume: %w", err)
	}
	if torn != nil {
		*notes = append(*notes, fmt.Sprintf("%s:%d: dropped a last line cut off mid-write (%d bytes); that case runs again", path, torn.line, torn.size))
	}
	err = writeAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		var buf []byte
		dec := getDecoder()
		defer putDecoder(dec)
		err := plan.walkKeys(func(pos, vi, ci int, id, hash string) error {
			fd, ok := have[key{cfg.Versions[vi].ID(), id, hash}]
			if !ok || fd.providerError {
				return nil
			}
			buf = slices.Grow(buf[:0], int(fd.span.n))[:fd.span.n]
			if _, err := src.ReadAt(buf, fd.span.off); err != nil {
				return err
			}
			var r Result
			if err := dec.decode(buf, &r, false); err != nil {
				return err
			}
			r.Seq = ci
			line, err := encodeResult(&r)
			if err != nil {
				return err
			}
			n := len(line.b)
			_, err = bw.Write(line.b)
			line.release()
			if err != nil {
				return err
			}
			spans[pos] = lineSpan{end, int32(n)}
			end += int64(n)
			kept++
			return nil
		})
		if err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return 0, 0, fmt.Errorf("resume: write results: %w", err)
	}
	return kept, end, nil
}

// reorderWindow is how many results per worker may wait to be written.
const reorderWindow = 256

// resultsFlushEvery is how often results.jsonl is brought up to date while
// cases run.
const resultsFlushEvery = 100 * time.Millisecond

// route runs the planned jobs not yet done (toRun of them; spans says
// which are done) on a worker pool and writes their lines in plan order
// through a reorder buffer. The cases are walked once a version, in plan
// order, as the workers need them: a streamed source parses each one then.
// When live, each line written in plan order is handed to cfg.Written
// with its result; handed counts them.
func route(ctx context.Context, cfg RunConfig, routers []Router, flows []*VersionWorkflows, plan *planSet, toRun int, spans []lineSpan, w *spanWriter, live bool, providerErrors *int) (ran, handed int, _ error) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := cfg.Concurrency
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = max(1, min(workers, toRun))

	// done is read by the walk while the writer fills spans in.
	done := make([]uint64, (len(spans)+63)/64)
	for pos, sp := range spans {
		if sp.n != 0 {
			setBit(done, pos)
		}
	}
	jobs := make(chan job)
	results := make(chan finished, workers)
	// A job is handed out only while fewer than reorderWindow per worker
	// are routed and not yet written: one slow case (a conversation, a
	// case with its own tools to fit) would otherwise let the other
	// workers run arbitrarily far ahead, their lines held in the reorder
	// buffer (tens of MB on a 100,000-case run).
	window := make(chan struct{}, workers*reorderWindow)
	var walkErr error // set before jobs is closed
	go func() {
		defer close(jobs)
		pos, seq := 0, 0
		for v := range cfg.Versions {
			err := plan.src.Each(func(i int, c *Case) error {
				if !plan.has(v, i) {
					return nil
				}
				pos++
				if hasBit(done, pos-1) {
					return nil
				}
				select {
				case window <- struct{}{}:
				case <-runCtx.Done():
					return errStopWalk
				}
				select {
				case jobs <- job{seq: seq, pos: pos - 1, v: v, i: i, c: c}:
					seq++
				case <-runCtx.Done():
					return errStopWalk
				}
				return nil
			})
			if err != nil {
				if !errors.Is(err, errStopWalk) {
					walkErr = err
				}
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One result a worker, overwritten by each case: encoding takes
			// its address, so a result of each case's own went to the heap.
			// Handed on live, each result is its own until it is read.
			var own Result
			res := &own
			for j := range jobs {
				if live {
					res = new(Result)
				}
				var err error
				*res, err = RunCase(runCtx, routers[j.v], cfg.Versions[j.v], flows[j.v], j.c, j.i)
				f := finished{seq: j.seq, pos: j.pos}
				if err == nil {
					f.line, err = encodeResult(res)
				}
				if err == nil && live {
					f.res, err = asWritten(res, f.line)
				}
				f.providerError, f.err = err == nil && HasProviderError(*res), err
				results <- f
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	var firstErr error
	// Written lines reach the file every resultsFlushEvery (and whenever
	// the buffer fills), not one write a result: a process killed in
	// between loses at most that long's results, which --resume runs
	// again. The ticker flushes a result that waits for a slow provider's
	// next one too.
	flush := time.NewTicker(resultsFlushEvery)
	defer flush.Stop()
	unflushed := false
	pending := map[int]finished{}
	next, count := 0, len(spans)-toRun
	if cfg.Progress != nil && len(spans) > 0 {
		cfg.Progress(count, len(spans))
	}
	write := func(f finished) {
		sp, err := w.write(f.line.b)
		f.line.release()
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("write results: %w", err)
			cancel()
		}
		spans[f.pos] = sp
		<-window
		ran++
		if f.providerError {
			*providerErrors++
		}
	}
	for open := true; open; {
		var f finished
		select {
		case <-flush.C:
			if unflushed {
				unflushed = false
				if err := w.w.Flush(); err != nil && firstErr == nil {
					firstErr = fmt.Errorf("write results: %w", err)
					cancel()
				}
			}
			continue
		case f, open = <-results:
			if !open {
				continue // every worker is done
			}
		}
		if f.err != nil {
			// A case cut off by cancellation is simply not done; any other
			// router error is a bug worth stopping for.
			if runCtx.Err() == nil && firstErr == nil {
				firstErr = f.err
				cancel()
			}
			continue
		}
		pending[f.seq] = f
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			write(p)
			if live && firstErr == nil {
				cfg.Written(handed, p.res)
				handed++
			}
			unflushed = true
			next++
		}
		count++
		if cfg.Progress != nil {
			cfg.Progress(count, len(spans))
		}
	}
	// Interrupted: keep what finished beyond the gap too; --resume puts the
	// file back in plan order.
	for _, seq := range slices.Sorted(maps.Keys(pending)) {
		write(pending[seq])
	}
	if err := w.w.Flush(); err != nil && firstErr == nil {
		firstErr = fmt.Errorf("write results: %w", err)
	}
	if firstErr == nil && walkErr != nil {
		firstErr = walkErr
	}
	if firstErr != nil {
		return ran, handed, firstErr
	}
	if ctx.Err() != nil {
		return ran, handed, fmt.Errorf("%w after %d of %d cases; finish with --resume: %w", ErrInterrupted, count, len(spans), ctx.Err())
	}
	return ran, handed, nil
}

// asWritten is what a reader of line, res's encoding, decodes: res itself
// (its traces as the line gives them back, readBackTrace) when the
// encoder found the line reads back as it (encodedLine.exact), else the
// line decoded, so that scoring the results as they are written gives
// exactly what scoring the file gives. res is the caller's own; only
// its slice headers change, never what a router may share.
func asWritten(res *Result, line *encodedLine) (*Result, error) {
	if line.exact {
		res.Decision.Trace = readBackTrace(res.Decision.Trace)
		for k := range res.Turns {
			res.Turns[k].Decision.Trace = readBackTrace(res.Turns[k].Decision.Trace)
		}
		return res, nil
	}
	dec := getDecoder()
	defer putDecoder(dec)
	read := new(Result)
	if err := dec.decode(line.b, read, false); err != nil {
		return nil, fmt.Errorf("read back result %s/%s: %w", res.Version, res.Case, err)
	}
	return read, nil
}

// RunCase routes one case under one version and judges the decision; a
// conversation is routed turn by turn on the calling goroutine, so its
// turns run in order whatever the concurrency; a workflow case then runs through the engine (RunWorkflowCase) and is
// judged on both (CheckWorkflow). vw may be nil for a version without
// workflows. seq is the case's position in the loaded case list.
func RunCase(ctx context.Context, rt Router, v *registry.Version, vw *VersionWorkflows, c *Case, seq int) (Result, error) {
	res, _, err := evaluateCase(ctx, rt, v, vw, c, seq, false)
	return res, err
}

// EvaluateCase is RunCase that also returns the verdict, whose problems
// say in words what differed (for specs).
func EvaluateCase(ctx context.Context, rt Router, v *registry.Version, vw *VersionWorkflows, c *Case, seq int) (Result, Verdict, error) {
	return evaluateCase(ctx, rt, v, vw, c, seq, true)
}

// CaseRegistry is the skill set c is routed and scored with: its own
// tools, else v's skills with its workflows routable (vw may be nil).
func CaseRegistry(v *registry.Version, vw *VersionWorkflows, c *Case) *registry.Registry {
	switch {
	case c.Tools != nil:
		return c.Tools
	case vw != nil && vw.Routing != nil:
		return vw.Routing
	}
	return v.Registry
}

// evaluateCase is EvaluateCase; words says whether a single case's
// verdict has its problems in words (check), which RunCase drops.
func evaluateCase(ctx context.Context, rt Router, v *registry.Version, vw *VersionWorkflows, c *Case, seq int, words bool) (Result, Verdict, error) {
	req := router.Request{Text: c.Input, Caller: c.Caller, Tools: c.Tools, ID: c.ID, ConversationID: c.ID}
	if c.Now != "" {
		now, err := time.Parse(time.RFC3339, c.Now)
		if err != nil {
			return Result{}, Verdict{}, fmt.Errorf("case %s: now: %w", c.ID, err)
		}
		req.Now = now
	}
	reg := CaseRegistry(v, vw, c)
	// A cassette recording this case masks the secrets it expects, which
	// the request's text holds even when the model does not answer them.
	ctx = router.WithMaskValues(ctx, CaseSensitiveValues(reg, c))
	if c.IsConversation() {
		return evaluateConversation(ctx, rt, v, reg, c, seq, req.Now, words)
	}
	start := time.Now()
	d, err := rt.Route(ctx, req)
	elapsed := time.Since(start)
	if err != nil {
		return Result{}, Verdict{}, fmt.Errorf("route %s under %s: %w", c.ID, v.ID(), err)
	}
	var first, resume *workflow.Outcome
	var verdict Verdict
	if c.Workflow != nil {
		if first, resume, err = RunWorkflowCase(ctx, v, vw, c, d); err != nil {
			return Result{}, Verdict{}, err
		}
		verdict = CheckWorkflow(c, d, reg, first, resume)
	} else {
		verdict = check(c, d, reg, words)
	}
	latency := d.LatencyUS
	if latency <= 0 {
		latency = elapsed.Microseconds()
	}
	res := Result{
		Format:    FormatVersion,
		Version:   v.ID(),
		Case:      c.ID,
		CaseHash:  c.Hash,
		Suite:     c.Suite,
		Tags:      nonNilTags(c.Tags),
		Input:     c.Input,
		Caller:    c.Caller,
		Expect:    c.Expect,
		Decision:  d,
		Pass:      verdict.Pass,
		Failure:   verdict.Failure,
		LatencyUS: latency,
		Workflow:  first,
		Resume:    resume,
		Seq:       seq,

		RequestID:      req.ID,
		ConversationID: req.ConversationID,
	}
	// Scored above on the real values; from here on only masked ones.
	MaskResult(reg, &res)
	return res, verdict, nil
}

// IsProviderError reports whether the decision failed at the model
// provider (exit code 3 territory).
func IsProviderError(d router.Decision) bool {
	return d.Action == router.Fail && hasCategory(d, router.CatProviderError)
}

// HasProviderError reports whether any decision of the result (any turn,
// for a conversation) failed at the model provider.
func HasProviderError(r Result) bool {
	// The decisions DecisionResults gives, without their copies.
	if !r.IsConversation() {
		return IsProviderError(r.Decision)
	}
	for i := range r.Turns {
		if IsProviderError(r.Turns[i].Decision) {
			return true
		}
	}
	return false
}

// nonNilTags makes "tags": [] rather than null, as DESIGN §8 shows.
func nonNilTags(tags []string) []string {
	if tags == nil {
		return []string{}
	}
	return tags
}
