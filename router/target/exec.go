package target

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
)

// stderrKept is how much of a process's stderr is kept for messages: the
// last bytes, where a crash explains itself.
const stderrKept = 2 << 10

// stopGrace is how long a process may take to exit after its stdin closes
// before it is killed.
const stopGrace = 2 * time.Second

// execTarget runs CMD (with sh -c) as long-lived processes, one per worker
// routing at once: one request JSON line in, one Decision line out.
//
// A process that crashes, answers a line over the size bound, or takes
// longer than the timeout is stopped and its case is an error result
// (provider_error, with the end of its stderr); the next case on that
// worker starts it again. A process restarted after a crash that crashes
// again before answering any case is not started a third time: every
// later case of that worker is an error naming both crashes, so a broken
// command fails the run quickly instead of being restarted forever.
type execTarget struct {
	command string
	env     []string
	timeout time.Duration
	maxLine int64
	limits  *providers.Limits

	mu     sync.Mutex
	idle   []*worker
	all    []*worker
	closed bool
}

// worker is one slot: its current process and its restart state.
type worker struct {
	p        *process
	restarts int   // restarts since the process last answered a case
	dead     error // set when the worker gives up on the command
}

func newExecTarget(spec Spec, v *registry.Version, o Options) *execTarget {
	env := append(os.Environ(), EnvVersion+"="+v.ID(), EnvVersionDir+"="+v.Dir)
	return &execTarget{
		command: spec.Command,
		env:     env,
		timeout: o.Timeout,
		maxLine: o.MaxAnswerBytes,
		limits:  providers.NewLimits(o.Concurrency, o.RPM),
	}
}

// take returns an idle worker or a new one.
func (t *execTarget) take() (*worker, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, errors.New("the target is closed")
	}
	if n := len(t.idle); n > 0 {
		w := t.idle[n-1]
		t.idle = t.idle[:n-1]
		return w, nil
	}
	w := &worker{}
	t.all = append(t.all, w)
	return w, nil
}

func (t *execTarget) put(w *worker) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		w.stop()
		return
	}
	t.idle = append(t.idle, w)
}

func (t *execTarget) exchange(ctx context.Context, _ router.Request, body []byte) ([]byte, string, string, error) {
	release, err := t.limits.Acquire(ctx)
	if err != nil {
		return nil, "", "", err
	}
	defer release()
	w, err := t.take()
	if err != nil {
		return nil, "", "", err
	}
	defer t.put(w)
	if w.dead != nil {
		return nil, "", "", w.dead
	}
	if w.p == nil {
		if w.p, err = t.start(); err != nil {
			w.dead = fmt.Errorf("cannot start %q: %w", t.command, err)
			return nil, "", "", w.dead
		}
	}
	p := w.p
	answer, err := p.ask(ctx, body, t.timeout)
	if err == nil {
		diag := ""
		if stderr := p.caseStderr(); stderr != "" {
			diag = "its stderr: " + stderr
		}
		p.stderr.markCase()
		if trimmed := bytes.TrimSpace(answer); len(trimmed) > 0 && trimmed[0] == '{' {
			w.restarts = 0
			return answer, "", diag, nil
		}
		// Not a JSON object: a banner or a log line, perhaps, and the real
		// answer may still be on its way, to be taken for the next case's.
		// The answer stands (a schema error); the process goes.
		w.stop()
		why := "the process was stopped, since answers after a line that is not a JSON object could land on the wrong case"
		if w.restarts >= 1 {
			w.dead = fmt.Errorf("its answers were not JSON objects (%q) even after a restart, so it is not started again; stdout carries answers only, one line per request (log to stderr)", bounded(string(answer), 80))
			why += "; it had been restarted once already, so it is not restarted again"
		} else {
			w.restarts++
			why += "; it is restarted for the next case"
		}
		return answer, "", joinNonEmpty(why, diag), nil
	}
	if ctx.Err() != nil {
		// Cut off by the run, not the target's fault: the process is in
		// an unknown place in the protocol, so it goes; no restart counted.
		w.stop()
		return nil, "", "", ctx.Err()
	}
	w.stop()
	msg := err.Error()
	if stderr := p.caseStderr(); stderr != "" {
		msg += "; its stderr: " + stderr
	}
	if w.restarts >= 1 {
		w.dead = fmt.Errorf("%s; it had been restarted once after a crash and failed again before answering any case, so it is not restarted again and the rest of this worker's cases are errors", msg)
		return nil, "", "", errors.New(msg + "; it had been restarted once already, so it is not restarted again")
	}
	w.restarts++
	return nil, "", "", errors.New(msg + "; the process is restarted for the next case")
}

func joinNonEmpty(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// start launches one process of the command.
func (t *execTarget) start() (*process, error) {
	cmd := shellCommand(t.command)
	cmd.Env = t.env
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe rather than StdoutPipe: Wait closes that one on exit,
	// which could lose an answer written just before the process ended.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = outW
	p := &process{cmd: cmd, stdin: stdin, outR: outR, lines: make(chan line, 4), done: make(chan struct{}), quit: make(chan struct{})}
	cmd.Stderr = &p.stderr
	// A grandchild holding stderr open must not keep Wait waiting.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	outW.Close()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	go p.read(bufio.NewReaderSize(outR, 64<<10), t.maxLine)
	return p, nil
}

func (t *execTarget) close() error {
	t.mu.Lock()
	t.closed = true
	all := t.all
	t.all, t.idle = nil, nil
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range all {
		wg.Add(1)
		go func() { defer wg.Done(); w.stop() }()
	}
	wg.Wait()
	return nil
}

// stop ends the worker's process, if it has one.
func (w *worker) stop() {
	if w.p != nil {
		w.p.stop()
		w.p = nil
	}
}

// process is one running instance of the command.
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	outR  *os.File
	// lines are stdout's lines as read, in order; the last one carries
	// the error that ended reading (the process closed stdout, a line
	// over the bound).
	lines   chan line
	stderr  tailBuffer
	done    chan struct{} // closed when the process has exited
	waitErr error
	quit    chan struct{} // closed by stop, so read never blocks for good
	stopped sync.Once
}

// line is one line of a process's stdout, or why there are no more.
type line struct {
	text []byte
	err  error
}

// read delivers stdout line by line until it ends. Reading runs ahead of
// the requests, so a line no request asked for (a banner, a log line) is
// seen as such instead of being taken for the next answer.
func (p *process) read(r *bufio.Reader, maxLine int64) {
	for {
		text, err := readLine(r, maxLine)
		select {
		case p.lines <- line{text: text, err: err}:
		case <-p.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// ask writes one request line and reads one answer line within timeout.
func (p *process) ask(ctx context.Context, body []byte, timeout time.Duration) ([]byte, error) {
	select {
	case l := <-p.lines:
		if l.err != nil {
			return nil, p.ended("waiting for a request", l.err)
		}
		return nil, unsolicited("to stdout before it was asked", l.text)
	default:
	}
	wrote := make(chan error, 1)
	go func() {
		req := make([]byte, 0, len(body)+1)
		_, err := p.stdin.Write(append(append(req, body...), '\n'))
		wrote <- err
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case err := <-wrote:
			if err != nil {
				return nil, p.ended("reading the request", err)
			}
			wrote = nil // written; now the answer
		case l := <-p.lines:
			if l.err != nil {
				return nil, p.ended("answering", l.err)
			}
			// A second line already there is a second answer to one
			// request; one that comes later is caught before the next.
			select {
			case extra := <-p.lines:
				if extra.err == nil {
					return nil, unsolicited(fmt.Sprintf("more than one line for one request (%q, then another)", bounded(string(l.text), 80)), extra.text)
				}
				p.lines <- extra // the end of the stream: next time
			default:
			}
			return l.text, nil
		case <-timer.C:
			p.stop()
			return nil, fmt.Errorf("no answer within %s (the process was stopped)", timeout)
		case <-ctx.Done():
			p.stop()
			return nil, ctx.Err()
		}
	}
}

func unsolicited(what string, text []byte) error {
	return fmt.Errorf("the process wrote %s: %q; stdout carries answers only, one line per request (log to stderr)", what, bounded(string(text), 80))
}

// ended explains why stdout or stdin closed: how the process ended, or the
// reading error (an answer line over the bound).
func (p *process) ended(doing string, err error) error {
	if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !isPipeError(err) {
		return err
	}
	select {
	case <-p.done:
	case <-time.After(stopGrace):
		return fmt.Errorf("the process closed its pipes while %s (%v)", doing, err)
	}
	status := "exit status 0"
	if p.waitErr != nil {
		status = p.waitErr.Error()
	}
	return fmt.Errorf("the process ended (%s) while %s", status, doing)
}

// isPipeError tells a write to a process that is gone.
func isPipeError(err error) bool {
	var pe *os.PathError
	return errors.As(err, &pe) || errors.Is(err, io.ErrClosedPipe)
}

// caseStderr is what the process wrote to stderr since its last answer
// (or its start), bounded, on one line: what it said about this case.
func (p *process) caseStderr() string { return p.stderr.sinceCase() }

// stop closes stdin, gives the process stopGrace to exit, then kills its
// process group.
func (p *process) stop() {
	p.stopped.Do(func() {
		close(p.quit)
		p.stdin.Close()
		select {
		case <-p.done:
			// The shell has gone; what it left running in the background
			// (its group) must not outlive the run.
			termProcessGroup(p.cmd)
		case <-time.After(stopGrace):
			killProcessGroup(p.cmd)
			<-p.done
		}
		p.outR.Close()
	})
}

// errLineTooLong is a process's answer line past the size bound; the
// rest of the line is not read, so the process cannot be asked again.
var errLineTooLong = errors.New("answer line too long")

// readLine reads one line (without its \n or \r\n) of at most max bytes.
func readLine(r *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > max+2 {
			return nil, fmt.Errorf("%w: over %d bytes without a newline (the process was stopped)", errLineTooLong, max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, fmt.Errorf("the process ended in the middle of an answer line (%d bytes, no newline, %q): %w", len(line), bounded(string(line), 80), io.EOF)
		default:
			return nil, err
		}
	}
}

// tailBuffer keeps the last stderrKept bytes a process wrote and where in
// the stream its last answer was read (markCase).
type tailBuffer struct {
	mu        sync.Mutex
	buf       []byte
	written   int64 // bytes ever written
	caseStart int64
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.written += int64(len(p))
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - stderrKept; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) markCase() {
	b.mu.Lock()
	b.caseStart = b.written
	b.mu.Unlock()
}

func (b *tailBuffer) sinceCase() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.written - b.caseStart
	cut := ""
	if n > int64(len(b.buf)) {
		n = int64(len(b.buf))
		cut = "…"
	}
	s := strings.Join(strings.Fields(string(b.buf[int64(len(b.buf))-n:])), " ")
	if s == "" {
		return ""
	}
	return cut + strings.ToValidUTF8(s, "�")
}
