package harness_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/router/registry"
)

// Fuzz targets for the input loaders. Beyond the seeds below, each has a
// corpus in testdata/fuzz/FuzzXxx/ (Go's corpus format; `go test` runs it
// as plain tests). To search for new inputs, one target at a time:
//
//	go test ./harness/ -run '^$' -fuzz '^FuzzLoadSuite$' -fuzztime 30s
//	go test ./harness/ -run '^$' -fuzz '^FuzzLoadConfig$' -fuzztime 30s
//
// Invariants: the loader never panics; it returns either cases (or a
// config) that hold up, or a *registry.LoadError whose every problem names
// the file, and a line inside it unless the problem is with the file as a
// whole (empty, unreadable).

// fuzzSkills is a small fixed registry, so expectations that name skills
// are checked against something without reading testdata per input.
const fuzzSkills = `skills:
  - name: query_orders
    description: Look up orders of a region.
    side_effect: read
    params_schema:
      type: object
      properties:
        region: {type: string, enum: [east, west]}
  - name: refund_order
    description: Refund one order.
    side_effect: write
    params_schema:
      type: object
      required: [order_id]
      properties:
        order_id: {type: string}
`

func fuzzRegistry(f *testing.F) *registry.Registry {
	skills, err := registry.ParseSkills("skills.yaml", []byte(fuzzSkills))
	if err != nil {
		f.Fatal(err)
	}
	reg, err := registry.New(skills)
	if err != nil {
		f.Fatal(err)
	}
	return reg
}

func FuzzLoadSuite(f *testing.F) {
	reg := fuzzRegistry(f)
	for _, seed := range []string{
		oneCase("a"),
		"suite: normal\ndefaults:\n  caller: {scopes: [orders:read]}\n  now: \"2026-11-30T10:00:00+08:00\"\n  tags: [ops]\ncases:\n" +
			"  - id: orders-001\n    input: 华东区的订单\n    expect: {action: execute, skill: query_orders, params: {region: {any_of: [east]}}}\n" +
			"  - id: refund-001\n    input: refund\n    expect: {action: confirm, skill: refund_order, params: {order_id: {regex: '^ORD-\\d+$'}}}\n",
		"suite: boundary\ncases:\n  - &c {id: x, input: y, expect: {action: clarify, candidates: [query_orders, refund_order]}}\n  - *c\n",
		"suite: adversarial\ncases:\n  - id: t\n    input: hi\n    tools: [{name: t1, description: d, side_effect: read, params_schema: {type: object}}]\n    expect: {action: execute, skill: t1}\n",
		oneCase("a") + "---\n" + oneCase("b"),
		// Aliases that multiply ("billion laughs"): ten levels stand for
		// 10^10 strings; the loader stops at p4.
		"suite: normal\ncases:\n  - id: bomb\n    input: x\n    expect:\n      action: execute\n      skill: query_orders\n      params:\n" +
			aliasBombText("        ", 10),
		oneCase(`"a\u202Eb"`),
		"suite: normal\ncases: [\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		file := filepath.Join(dir, "suite.yaml")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cases, err := harness.LoadSuites([]string{dir}, reg)
		if err != nil {
			checkProblems(t, err, file, data)
			return
		}
		seen := map[string]bool{}
		for _, c := range cases {
			if why := badID(c.ID); why != "" {
				t.Fatalf("loaded case id %q %s", c.ID, why)
			}
			if seen[c.ID] {
				t.Fatalf("loaded case id %q twice", c.ID)
			}
			seen[c.ID] = true
			if c.Pos.File != file || c.Pos.Line < 1 {
				t.Fatalf("case %q at %v, want a line of %s", c.ID, c.Pos, file)
			}
			// The hash's canonical JSON, written without reflection, is
			// json.Marshal's.
			if fast, byJSON := harness.CaseHashBothWays(c); fast != byJSON {
				t.Fatalf("case %q hashes to %s, by json.Marshal %s", c.ID, fast, byJSON)
			}
		}
	})
}

// aliasBombText is levels lines at indent, p0 an anchored list of ten
// strings and each next one ten aliases of the one before.
func aliasBombText(indent string, levels int) string {
	var b strings.Builder
	for k := range levels {
		item := "lol"
		if k > 0 {
			item = "*a" + strconv.Itoa(k-1)
		}
		b.WriteString(indent + "p" + strconv.Itoa(k) + ": &a" + strconv.Itoa(k) + " [" + strings.TrimSuffix(strings.Repeat(item+", ", 10), ", ") + "]\n")
	}
	return b.String()
}

func FuzzLoadConfig(f *testing.F) {
	for _, seed := range []string{
		"versions: [v1, v2]\nsuites: [s]\n",
		"versions: [p/v1, p/v2]\nsuites: [s]\ngate:\n  versions: [p/v2]\n  thresholds:\n    - decision_accuracy >= 0.75\n" +
			"    - refusal_recall{suite:adversarial} >= 95%\n    - latency_p95 < 250\n" +
			"  regression:\n    metrics: [decision_accuracy, wrong_execution_rate]\n    max_drop: 0.02\n    alpha: 0.05\n",
		"versions: [v1]\ngate:\n  thresholds: [decision_acuracy => 0.85]\n  regression: {metrics: [clarification_rate], alpha: 3}\n",
		"versions: &v [v1]\nsuites: *v\ngate: {versions: *v}\n",
		"versions: [v1]\n---\nsuites: [s]\n",
		"gate:\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "routebench.yaml")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := harness.LoadConfig(file)
		if err != nil {
			checkProblems(t, err, file, data)
			return
		}
		g := cfg.Gate
		for _, th := range g.Thresholds {
			if _, ok := harness.LookupMetric(th.Metric); !ok {
				t.Fatalf("loaded threshold %q on unknown metric", th.Text)
			}
			if th.Kind == harness.KindRate && (th.Bound < 0 || th.Bound > 1) {
				t.Fatalf("loaded threshold %q with rate bound %v", th.Text, th.Bound)
			}
		}
		if r := g.Regression; r != nil && (len(r.Metrics) == 0 || !(r.Alpha > 0 && r.Alpha < 1) || !(r.MaxDrop >= 0 && r.MaxDrop < 1)) {
			t.Fatalf("loaded regression rule %+v", *r)
		}
		for _, v := range g.Versions {
			if !containsString(cfg.Versions, v) {
				t.Fatalf("gate version %q is not among versions %q", v, cfg.Versions)
			}
		}
	})
}

// checkProblems holds a load error to the loaders' contract.
func checkProblems(t *testing.T, err error, file string, data []byte) {
	t.Helper()
	var le *registry.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("want a *registry.LoadError, got %T: %v", err, err)
	}
	if len(le.Problems) == 0 {
		t.Fatalf("a load error without problems")
	}
	// YAML breaks lines at CR LF, LF and a lone CR alike (and so does an
	// editor showing the file), so the loader's lines are counted that way.
	lines := strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(string(data), "\r\n", ""), "\r") + 1
	for _, p := range le.Problems {
		if p.Pos.File != file {
			t.Fatalf("problem names %q, want %q: %s", p.Pos.File, file, p)
		}
		whole := strings.HasPrefix(p.Message, "is empty") || strings.HasPrefix(p.Message, "cannot be read")
		if !whole && (p.Pos.Line < 1 || p.Pos.Line > lines) {
			t.Fatalf("problem has line %d, want 1..%d: %s", p.Pos.Line, lines, p)
		}
		if p.Message == "" || strings.ContainsAny(p.Message+p.Field, "\r\n") {
			t.Fatalf("problem %q: %q is not one line", p.Field, p.Message)
		}
	}
}

// badID restates the id rule independently of the loader's code.
func badID(id string) string {
	if id == "" || strings.TrimSpace(id) != id {
		return "is empty or has edge spaces"
	}
	for _, r := range id {
		if !unicode.IsPrint(r) || r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) {
			return "holds a control, bidi or non-printing character"
		}
	}
	return ""
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
