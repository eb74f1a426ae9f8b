package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/routebench/routebench/router"
)

// progressEvery is how often a run off a terminal (CI) says how far it is.
const progressEvery = 10 * time.Second

// progress tells on stderr what a long command is doing: each phase as it
// starts (loading, fitting, indexing, writing), then the routing as a
// redrawn bar with rate and ETA on a terminal, or one line every
// progressEvery otherwise, so a CI log shows the run is alive without
// filling up with carriage returns.
type progress struct {
	w        io.Writer
	terminal bool
	now      func() time.Time // injectable: tests never sleep
	every    time.Duration

	mu      sync.Mutex
	start   time.Time // of routing, at the first case
	base    int       // cases done before this process (resumed)
	last    time.Time // last bar draw or line
	started bool
	drawn   bool // a bar is on the current line
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, terminal: isTerminal(w), now: time.Now, every: progressEvery}
}

// phase announces a step, on its own line.
func (p *progress) phase(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endBar()
	fmt.Fprintf(p.w, format+"…\n", args...)
}

// build announces a step of building a version's router.
func (p *progress) build(ph router.BuildPhase) {
	what := "skills"
	if ph.Step == "indexing" {
		what = "recall texts"
	}
	p.phase("%s %s %s of %s", ph.Step, thousands(ph.Count), what, ph.Version)
}

// update is harness.RunConfig.Progress: done of total cases routed. Its
// first call comes before any case is routed, with what a resumed run kept.
func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !p.started {
		p.started, p.start, p.last, p.base = true, now, now, done
		switch {
		case p.terminal:
		case done > 0:
			// A resumed run counts what it kept towards the whole.
			fmt.Fprintf(p.w, "routing %s cases, %s of them kept from the earlier run…\n", thousands(total), thousands(done))
		default:
			fmt.Fprintf(p.w, "routing %s cases…\n", thousands(total))
		}
	}
	switch {
	case p.terminal:
		if now.Sub(p.last) < 100*time.Millisecond && done < total && p.drawn {
			return
		}
		const width = 24
		filled := width
		if total > 0 {
			filled = width * done / total
		}
		// \x1b[K clears what a longer previous draw left (a terminal only).
		fmt.Fprintf(p.w, "\r[%s%s] %s/%s cases  %s\x1b[K", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
			thousands(done), thousands(total), p.rate(done, total, now))
		p.drawn = true
	case now.Sub(p.last) >= p.every || done == total:
		fmt.Fprintf(p.w, "routed %s/%s cases (%d%%)  %s\n", thousands(done), thousands(total), percent(done, total), p.rate(done, total, now))
	default:
		return
	}
	p.last = now
}

// rate is "61.7 cases/s, ETA 3m43s, 20s": speed over the cases this
// process routed since the first (resumed ones excluded), time left at
// that speed, and time so far.
func (p *progress) rate(done, total int, now time.Time) string {
	elapsed := now.Sub(p.start)
	ran := done - p.base
	parts := []string{}
	if secs := elapsed.Seconds(); secs > 0 && ran > 0 {
		perSec := float64(ran) / secs
		parts = append(parts, fmt.Sprintf("%.1f cases/s", perSec))
		if done < total {
			left := time.Duration(float64(total-done) / perSec * float64(time.Second))
			parts = append(parts, "ETA "+left.Round(time.Second).String())
		}
	}
	parts = append(parts, elapsed.Round(100*time.Millisecond).String())
	return strings.Join(parts, ", ")
}

// finish ends the bar's line, before any other output.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endBar()
}

// done names the outputs, the last line a command prints.
func (p *progress) done(dir string, files ...string) {
	p.finish()
	if len(files) == 0 {
		return
	}
	names := append([]string{dirJoin(dir, files[0])}, files[1:]...)
	fmt.Fprintf(p.w, "wrote %s\n", strings.Join(names, ", "))
}

func (p *progress) endBar() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

func dirJoin(dir, name string) string {
	return strings.TrimSuffix(dir, "/") + "/" + name
}

func percent(done, total int) int {
	if total == 0 {
		return 100
	}
	return 100 * done / total
}

// thousands writes n with comma separators: 15,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
