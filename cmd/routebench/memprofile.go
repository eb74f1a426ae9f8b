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
	// phase names the current phase; phasePeak is its highest live heap,
	// and phaseWritten says its file has been written. peak and written
	// are the same for the whole run.
	phase        string
	phasePeak    uint64
	phaseWritten bool
	peak         uint64
	written      bool
	err          error
}

const liveHeapMetric = "/gc/heap/live:bytes"

func startPeakProfile(path string) *peakProfiler {
	p := &peakProfiler{path: path, phase: "load", stop: make(chan struct{}), done: make(chan struct{})}
	p.sample(liveHeapBytes()) // every phase has its file, however short
	go p.watch()
	return p
}

func liveHeapBytes() uint64 {
	sample := []metrics.Sample{{Name: liveHeapMetric}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

func (p *peakProfiler) watch() {
	defer close(p.done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		p.sample(liveHeapBytes())
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
	p.phase, p.phasePeak, p.phaseWritten = phase, 0, false
	p.mu.Unlock()
	p.sample(liveHeapBytes())
}

func (p *peakProfiler) sample(live uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	if !p.phaseWritten || live > p.phasePeak+p.phasePeak/50 {
		p.phasePeak, p.phaseWritten = live, true
		p.err = writeHeapProfile(p.path + "." + p.phase)
	}
	if !p.written || live > p.peak+p.peak/50 {
		p.peak, p.written = live, true
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
