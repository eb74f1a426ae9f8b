package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// peakProfiler keeps, in one file per phase of a run (PATH.load,
// PATH.route, PATH.score), the heap profile taken when the live heap was
// at its highest in that phase, and the highest of them all in PATH: a
// profile written at the end of a run shows what is left, not what made
// the peak RSS. It polls the runtime's live heap (as of the last GC, like
// the profile itself) and rewrites a file at every new high of more than 2%.
type peakProfiler struct {
	path string
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	// phase names the current phase; phasePeak is its highest live heap.
	phase     string
	phasePeak uint64
	peak      uint64
	err       error
}

const liveHeapMetric = "/gc/heap/live:bytes"

func startPeakProfile(path string) *peakProfiler {
	p := &peakProfiler{path: path, phase: "load", stop: make(chan struct{}), done: make(chan struct{})}
	go p.watch()
	return p
}

func (p *peakProfiler) watch() {
	defer close(p.done)
	sample := []metrics.Sample{{Name: liveHeapMetric}}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		metrics.Read(sample)
		p.sample(sample[0].Value.Uint64())
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

// enter starts a phase of the run.
func (p *peakProfiler) enter(phase string) {
	if p == nil {
		return
	}
	// The live heap is as of the last GC, which may be long before the
	// phase: a fresh one makes its first sample its own.
	runtime.GC()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.phasePeak = phase, 0
}

func (p *peakProfiler) sample(live uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	if live > p.phasePeak+p.phasePeak/50 {
		p.phasePeak = live
		p.err = writeHeapProfile(p.path + "." + p.phase)
	}
	if live > p.peak+p.peak/50 {
		p.peak = live
		if p.err == nil {
			p.err = writeHeapProfile(p.path)
		}
	}
}

// writeHeapProfile replaces the file whole, so a reader never sees half a
// profile.
func writeHeapProfile(path string) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// finish stops watching and says what the profile shows.
func (p *peakProfiler) finish(stderr io.Writer) {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
	if p.err != nil {
		fmt.Fprintf(stderr, "warning: --memprofile: %v\n", p.err)
		return
	}
	fmt.Fprintf(stderr, "heap profile at the peak live heap (%.0f MB): %s\n", float64(p.peak)/(1<<20), p.path)
}
