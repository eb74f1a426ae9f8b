package target_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/target"
)

// refuseWithPID answers every line with a refusal naming the process, so
// specs can tell a restarted process from the first one.
const refuseWithPID = `printf '{"action":"refuse","confidence":0,"message":"pid %s"}\n' "$$"`

var pidInMessage = regexp.MustCompile(`pid (\d+)`)

func pidOf(d router.Decision) string {
	m := pidInMessage.FindStringSubmatch(d.Message)
	ExpectWithOffset(1, m).NotTo(BeNil(), "no pid in %q", d.Message)
	return m[1]
}

var _ = Describe("an exec target", func() {
	It("speaks one JSON line in and one out with the Python example, which routes by keywords", func() {
		needPython()
		r := newTarget("exec:python3 "+pyExample, target.Options{})
		d := ask(r, "please refund ORD-12345678", "orders:read", "orders:write")
		Expect(d.Action).To(Equal(router.Confirm), describe(d))
		Expect(d.Skill).To(Equal("refund_order"))
		Expect(d.Gate).To(BeEquivalentTo("normal"))
		Expect(d.Version).To(Equal(routingV2().ID()), "the result carries the version under test")
		Expect(d.Model).To(Equal("target:exec:python3 " + pyExample))
		Expect(d.Trace[0].Stage).To(Equal("target"))
		Expect(d.LatencyUS).To(BeNumerically(">", 0))

		// Policy first in the example too: without orders:write the refund
		// is not a candidate.
		d = ask(r, "please refund ORD-12345678", "orders:read")
		Expect(d.Skill).NotTo(Equal("refund_order"), describe(d))
		d = ask(r, "what is the weather like", "orders:read")
		Expect(d.Action).To(Equal(router.Refuse), describe(d))
	})

	It("answers from a case's own tools with the Python example", func() {
		needPython()
		tools := toolsOf(`
- name: water_plants
  description: Water the greenhouse plants on a schedule
  side_effect: write
  permission_scope: [garden:write]
- name: list_plants
  description: List the plants growing in the greenhouse
  side_effect: read
`)
		r := newTarget("exec:python3 "+pyExample, target.Options{})
		d, err := r.Route(bg(), router.Request{ID: "t1", Text: "please list the greenhouse plants", Caller: router.Caller{Scopes: []string{"garden:write"}}, Tools: tools})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Action).To(Equal(router.Execute), describe(d))
		Expect(d.Skill).To(Equal("list_plants"))
	})

	It("serves HTTP too: the Python example with --http, scored through an HTTP target", func() {
		needPython()
		cmd := exec.Command("python3", pyExample, "--http", "0")
		out, err := cmd.StdoutPipe()
		Expect(err).NotTo(HaveOccurred())
		Expect(cmd.Start()).To(Succeed())
		DeferCleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		url := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
		Expect(url).To(HavePrefix("http://127.0.0.1:"))

		r := newTarget(url, target.Options{})
		d := ask(r, "show the alerts of zone east", "alerts:read")
		Expect(d.Action).To(Equal(router.Execute), describe(d))
		Expect(d.Skill).To(Equal("query_alerts_by_zone"))
		Expect(d.Model).To(Equal("target:" + url))
	})

	It("starts the process with the version under test in its environment", func() {
		r := newTarget(script(`while IFS= read -r line; do
  printf '{"action":"refuse","confidence":0,"message":"%s in %s"}\n' "$ROUTEBENCH_VERSION" "$ROUTEBENCH_VERSION_DIR"
done`), target.Options{})
		d := ask(r, "anything")
		Expect(d.Message).To(Equal(routingV2().ID() + " in " + opsV2))
	})

	It("keeps one long-lived process per worker: answers in turn come from the same process", func() {
		r := newTarget(script("while IFS= read -r line; do "+refuseWithPID+"; done"), target.Options{})
		first := pidOf(ask(r, "one"))
		Expect(pidOf(ask(r, "two"))).To(Equal(first))
		Expect(pidOf(ask(r, "three"))).To(Equal(first))
	})

	It("makes a crashed case an error with the process's stderr, and restarts the process once for the next case", func() {
		r := newTarget(script(`while IFS= read -r line; do
  case "$line" in
    *boom*) echo "cannot parse the request: boom seen" >&2; exit 3;;
  esac
  `+refuseWithPID+`
done`), target.Options{})
		before := pidOf(ask(r, "fine"))
		d := ask(r, "boom")
		Expect(d.Action).To(Equal(router.Fail), "a crash is never a refusal: %s", describe(d))
		e := firstError(d)
		Expect(e.Category).To(Equal(router.CatProviderError))
		Expect(e.Message).To(ContainSubstring("exit status 3"))
		Expect(e.Message).To(ContainSubstring("its stderr: cannot parse the request: boom seen"))
		Expect(e.Message).To(ContainSubstring("restarted for the next case"))
		Expect(d.Version).To(Equal(routingV2().ID()))

		after := ask(r, "fine again")
		Expect(after.Action).To(Equal(router.Refuse), describe(after))
		Expect(pidOf(after)).NotTo(Equal(before), "the next case runs on a new process")

		// A crash after the restarted process answered is a new crash:
		// restarted once more.
		Expect(ask(r, "boom").Action).To(Equal(router.Fail))
		Expect(ask(r, "fine at last").Action).To(Equal(router.Refuse))
	})

	It("does not restart a process a third time when the restarted one fails before answering any case", func() {
		starts := filepath.Join(GinkgoT().TempDir(), "starts")
		r := newTarget(script(`echo start >> `+starts+`
echo "broken build: missing module" >&2
exit 1`), target.Options{Concurrency: 1})
		for _, text := range []string{"a", "b", "c", "d"} {
			d := ask(r, text)
			Expect(d.Action).To(Equal(router.Fail), describe(d))
			Expect(firstError(d).Category).To(Equal(router.CatProviderError))
			Expect(firstError(d).Message).To(ContainSubstring("broken build: missing module"))
		}
		Expect(ask(r, "e").Errors[0].Message).To(ContainSubstring("not restarted again"))
		data, err := os.ReadFile(starts)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(data), "start")).To(Equal(2), "started, then restarted once, then left stopped")
	})

	It("stops a process that takes longer than the timeout; that case is an error and the next one runs", func() {
		r := newTarget(script(`while IFS= read -r line; do
  case "$line" in
    *slow*) sleep 30;;
  esac
  `+refuseWithPID+`
done`), target.Options{Timeout: time.Second})
		// A second, not less: the restarted sh must answer "quick" within it
		// on a busy CI machine too.
		d := ask(r, "slow")
		Expect(d.Action).To(Equal(router.Fail), describe(d))
		Expect(firstError(d).Category).To(Equal(router.CatProviderError))
		Expect(firstError(d).Message).To(ContainSubstring("no answer within 1s"))
		Expect(ask(r, "quick").Action).To(Equal(router.Refuse))
	})

	It("bounds the stderr it quotes and the answer line it reads", func() {
		r := newTarget(script(`while IFS= read -r line; do
  case "$line" in
    *noisy*) i=0; while [ $i -lt 2000 ]; do echo "noise line $i of a very chatty router" >&2; i=$((i+1)); done; echo "the last words" >&2; exit 2;;
    *long*) head -c 5000 /dev/zero | tr '\0' 'x'; echo;;
  esac
  `+refuseWithPID+`
done`), target.Options{MaxAnswerBytes: 1024})
		d := ask(r, "noisy")
		msg := firstError(d).Message
		Expect(msg).To(ContainSubstring("the last words"))
		Expect(len(msg)).To(BeNumerically("<", 3<<10), "stderr is quoted to its last 2 KiB")
		Expect(ask(r, "short").Action).To(Equal(router.Refuse))

		d = ask(r, "long")
		Expect(firstError(d).Category).To(Equal(router.CatProviderError))
		Expect(firstError(d).Message).To(ContainSubstring("over 1024 bytes"))
		Expect(ask(r, "short").Action).To(Equal(router.Refuse))
	})

	It("holds each answer line to the Decision format: a bad line is a schema error, never a refusal", func() {
		r := newTarget(script(`while IFS= read -r line; do
  case "$line" in
    *chatty*) echo "I think you want to refuse this";;
    *maybe*) echo '{"action":"maybe","confidence":0}';;
    *) echo '{"action":"refuse","confidence":0}';;
  esac
done`), target.Options{})
		d := ask(r, "chatty")
		Expect(d.Action).To(Equal(router.Fail))
		Expect(firstError(d).Category).To(Equal(router.CatSchemaError))
		Expect(firstError(d).Rule).To(Equal(target.RuleNotADecision))
		Expect(d.Trace[0].Raw).To(Equal("I think you want to refuse this"))
		Expect(firstError(d).Message).To(ContainSubstring("it is restarted for the next case"), "a line that is not JSON may have been a log line")
		Expect(ask(r, "fine").Action).To(Equal(router.Refuse))
		d = ask(r, `{"action": "maybe"}`)
		Expect(firstError(d).Rule).To(Equal(target.RuleNotADecision))
		Expect(firstError(d).Message).NotTo(ContainSubstring("restarted"), "a JSON answer keeps the process in step")
	})

	It("refuses output no request asked for, since answers are matched to requests by order alone", func() {
		r := newTarget(script(`echo "router v1.2 ready"
while IFS= read -r line; do echo '{"action":"refuse","confidence":0}'; done`), target.Options{})
		// The banner is caught before the first request when it has been
		// written by then; otherwise it is read as the first answer (not
		// a Decision) and the process is stopped before its real answer
		// could be taken for the second case's. Either way no case gets
		// an answer, and the process is not restarted a third time.
		for _, text := range []string{"first", "second", "third"} {
			d := ask(r, text)
			Expect(d.Action).To(Equal(router.Fail), describe(d))
			Expect(firstError(d).Message).To(ContainSubstring("router v1.2 ready"))
		}
	})

	It("refuses two lines for one request", func() {
		r := newTarget(script(`while IFS= read -r line; do
  echo '{"action":"refuse","confidence":0}'
  case "$line" in
    *twice*) echo "debug: refused";;
  esac
done`), target.Options{})
		Expect(ask(r, "once").Action).To(Equal(router.Refuse))
		// The extra line is caught with the answer when it has arrived by
		// then, else before the next request is sent, else read as the
		// next answer, which it is not: in every case an error names it.
		var messages []string
		for _, text := range []string{"twice", "next"} {
			if d := ask(r, text); d.Action == router.Fail {
				messages = append(messages, firstError(d).Message)
			}
		}
		Expect(messages).To(ContainElement(ContainSubstring("debug: refused")))
	})

	It("stops every process on Close", func() {
		pids := filepath.Join(GinkgoT().TempDir(), "pids")
		r := newTarget(script(`echo $$ >> `+pids+`
while IFS= read -r line; do `+refuseWithPID+`; done`), target.Options{})
		Expect(ask(r, "one").Action).To(Equal(router.Refuse))
		Expect(r.Close()).To(Succeed())
		data, err := os.ReadFile(pids)
		Expect(err).NotTo(HaveOccurred())
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() error { return syscall.Kill(pid, 0) }).Should(MatchError(syscall.ESRCH))
	})

	It("stops what the process left running in the background when it exits on Close", func() {
		pids := filepath.Join(GinkgoT().TempDir(), "pids")
		r := newTarget(script(`sleep 97 & echo $! >> `+pids+`
while IFS= read -r line; do `+refuseWithPID+`; done`), target.Options{})
		Expect(ask(r, "one").Action).To(Equal(router.Refuse))
		Expect(r.Close()).To(Succeed())
		data, err := os.ReadFile(pids)
		Expect(err).NotTo(HaveOccurred())
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		Expect(err).NotTo(HaveOccurred())
		// The sleep would outlive the run by 97 s without the group stop.
		Eventually(func() error { return syscall.Kill(pid, 0) }, "3s").Should(MatchError(syscall.ESRCH))
	})
})
