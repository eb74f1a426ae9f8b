package main

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
)

// A run's peak memory is reached while it routes (the routers' models and
// memos beside the results in flight); scoring after it keeps a live heap
// of a fraction of that, and at the default GOGC of 100 collected it
// about every 15 MB it allocated: a third of a second of GC on 10,000
// cases × 3 versions. gcPacer lets the scoring pass's heap grow into
// memory the process has already held instead: after each GC it sets
// GOGC so that the next heap goal is what the peak's resident memory
// allowed, never below the default, so scoring collects less often and
// the run's peak RSS stays where routing put it. The GC only ever decides
// when memory is freed; nothing a run writes depends on it.
type gcPacer struct {
	// goal is the heap goal the peak allows; was is GOGC before pacing.
	goal uint64
	was  int
	// mu keeps a cleanup's pace from following stop's restore.
	mu      sync.Mutex
	stopped bool
}

// gcSentinel is garbage the moment it is made; its cleanup runs after
// the GC that finds it, and makes the next one.
type gcSentinel struct{ _ *gcPacer }

const (
	// heapShareOfPeak is how much of the peak's anonymous resident memory
	// the heap goal may take: the rest is what the runtime keeps beside
	// the heap (spans not yet reused, stacks, metadata), 10-13 MB on a
	// 10,000 × 3 run, and a margin (at three quarters, scoring's resident
	// memory came within 1 MB of the peak).
	heapShareOfPeak = 0.65
	// maxPace bounds GOGC where the live heap is tiny beside the peak.
	maxPace = 800
)

// paceGCUnderPeak starts pacing the GC under the process's peak memory
// so far, until stop (which puts GOGC back). It does nothing where the
// peak cannot be read (no /proc) or GOGC is not the default.
func paceGCUnderPeak() (stop func()) {
	was := debug.SetGCPercent(100)
	debug.SetGCPercent(was)
	peakAnon, ok := peakAnonymousRSS()
	if was != 100 || !ok {
		return func() {}
	}
	p := &gcPacer{goal: uint64(float64(peakAnon) * heapShareOfPeak), was: was}
	p.pace()
	p.arm()
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.stopped = true
		debug.SetGCPercent(p.was)
	}
}

func (p *gcPacer) arm() {
	runtime.AddCleanup(&gcSentinel{}, func(p *gcPacer) {
		if p.pace() {
			p.arm()
		}
	}, p)
}

// pace sets GOGC for the live heap now (pacedPercent); false once
// stopped.
func (p *gcPacer) pace() bool {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	percent := pacedPercent(p.goal, s[0].Value.Uint64())
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		debug.SetGCPercent(percent)
	}
	return !p.stopped
}

// pacedPercent is the GOGC whose next heap goal, live × (1 + GOGC/100),
// is goal, but never below the default 100 (twice the live heap) and
// at most maxPace.
func pacedPercent(goal, live uint64) int {
	if live == 0 || goal <= 2*live {
		return 100
	}
	return int(min(100*(goal-live)/live, maxPace))
}

// peakAnonymousRSS is the process's peak resident memory less the file
// pages resident now (the binary's own, mostly), in bytes: about the most
// memory the runtime has held at once.
func peakAnonymousRSS() (uint64, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	var hwm, file uint64
	var haveHWM, haveFile bool
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		name, value, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		switch string(name) {
		case "VmHWM":
			hwm, haveHWM = kilobytes(value)
		case "RssFile":
			file, haveFile = kilobytes(value)
		}
	}
	if !haveHWM || !haveFile || file >= hwm {
		return 0, false
	}
	return hwm - file, true
}

// kilobytes reads a /proc/self/status value such as "  104012 kB".
func kilobytes(value []byte) (uint64, bool) {
	n, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(value), []byte(" kB"))), 10, 64)
	return n << 10, err == nil
}
