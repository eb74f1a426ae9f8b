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
	answer, err := p.ask(ctx, body, t.timeout, t.maxLine)
	if err == nil {
		w.restarts = 0
		diag := p.caseStderr()
		p.stderr.markCase()
		return answer, "", diag, nil
	}
	if ctx.Err() != nil {
		// Cut off by the run, not the target's fault: the process is in
		// an unknown place in the protocol, so it goes; no restart counted.
		w.stop()
		return nil, "", "", ctx.Err()
	}
	w.stop()
	stderr := p.caseStderr()
	msg := err.Error()
	if stderr != "" {
		msg += "; its stderr: " + stderr
	}
	if w.restarts >= 1 {
		w.dead = fmt.Errorf("%s; it had been restarted once after a crash and failed again before answering any case, so it is not restarted again and the rest of this worker's cases are errors", msg)
		return nil, "", "", errors.New(msg + "; it had been restarted once already, so it is not restarted again")
	}
	w.restarts++
	return nil, "", "", errors.New(msg + "; the process is restarted for the next case")
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
	p := &process{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(outR, 64<<10), outR: outR, done: make(chan struct{})}
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
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	out     *bufio.Reader
	outR    *os.File
	stderr  tailBuffer
	done    chan struct{}
	waitErr error
	stopped sync.Once
}

// ask writes one request line and reads one answer line within timeout.
func (p *process) ask(ctx context.Context, body []byte, timeout time.Duration, maxLine int64) ([]byte, error) {
	type answer struct {
		line []byte
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		line := make([]byte, 0, len(body)+1)
		line = append(append(line, body...), '\n')
		if _, err := p.stdin.Write(line); err != nil {
			got <- answer{err: p.exitedWhile("reading the request", err)}
			return
		}
		l, err := readLine(p.out, maxLine)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = p.exitedWhile("answering", err)
			}
			got <- answer{err: err}
			return
		}
		got <- answer{line: l}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case a := <-got:
		return a.line, a.err
	case <-timer.C:
		p.stop()
		<-got
		return nil, fmt.Errorf("no answer within %s (the process was stopped)", timeout)
	case <-ctx.Done():
		p.stop()
		<-got
		return nil, ctx.Err()
	}
}

// exitedWhile explains a closed pipe by how the process ended.
func (p *process) exitedWhile(doing string, err error) error {
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

// caseStderr is what the process wrote to stderr since its last answer
// (or its start), bounded, on one line: what it said about this case.
func (p *process) caseStderr() string { return p.stderr.sinceCase() }

// stop closes stdin, gives the process stopGrace to exit, then kills its
// process group.
func (p *process) stop() {
	p.stopped.Do(func() {
		p.stdin.Close()
		select {
		case <-p.done:
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
			return nil, fmt.Errorf("the process ended in the middle of an answer line (%d bytes, no newline): %w", len(line), io.EOF)
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
