// Package specrun lets a Ginkgo suite run under `go test -count=N` and
// `-cpu=a,b,c`. Ginkgo runs a suite once per process and refuses -count;
// repeating runs is how a spec that depends on scheduling is caught, so
// every run after the first (and every run when -count is not 1) happens
// in a fresh child process of the same test binary.
package specrun

import (
	"flag"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

// EventuallyTimeout is how long a suite's Eventually waits unless the spec
// says otherwise. Gomega's own default, one second, is a deadline a busy CI
// machine misses; Eventually returns as soon as its condition holds, so a
// longer wait costs a passing spec nothing.
const EventuallyTimeout = 15 * time.Second

// childEnv marks a child process: it runs its suite in-process, once.
const childEnv = "ROUTEBENCH_SPECRUN_CHILD"

var ran bool

// RunSpecs runs the package's Ginkgo suite from its TestXxx function t, in
// this process when Ginkgo allows it and in a child process otherwise.
func RunSpecs(t *testing.T, description string) {
	t.Helper()
	if os.Getenv(childEnv) != "" || (!ran && countFlag() == 1) {
		ran = true
		gomega.SetDefaultEventuallyTimeout(EventuallyTimeout)
		ginkgo.RunSpecs(t, description)
		return
	}
	args := []string{"-test.count=1", "-test.run=^" + t.Name() + "$", "-test.cpu=" + strconv.Itoa(runtime.GOMAXPROCS(0))}
	args = append(args, passOn(os.Args[1:])...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s (in a child process, GOMAXPROCS %d): %v", description, runtime.GOMAXPROCS(0), err)
	}
}

func countFlag() int {
	f := flag.Lookup("test.count")
	if f == nil {
		return 1
	}
	n, err := strconv.Atoi(f.Value.String())
	if err != nil {
		return 1
	}
	return n
}

// passOn drops the flags the child gets its own values of (count, cpu,
// run, and the fuzzing ones); the rest (-v, -timeout, -ginkgo.*) go on.
func passOn(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch strings.TrimPrefix(name, "test.") {
		case "count", "cpu", "run", "fuzz", "fuzztime", "fuzzminimizetime", "fuzzcachedir", "fuzzworker", "coverprofile":
			if !hasValue && i+1 < len(args) {
				i++ // its value was the next argument
			}
			continue
		}
		out = append(out, args[i])
	}
	return out
}
