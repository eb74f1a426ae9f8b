package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routebench/routebench/internal/exitcode"
	"github.com/routebench/routebench/router"
)

// These are plain Go tests, not Ginkgo specs: several helpers add commands
// to this package, and one Ginkgo suite file per package is the rule.

const v2 = "../../fixtures/ops/prompts/v2"

func routeCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"route"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRoutePrintsADecision(t *testing.T) {
	code, out, errOut := routeCLI(t, "--version", v2, "--now", "2026-11-30T10:00:00+08:00", "看看华东区上周已发货的订单")
	if code != exitcode.Pass {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var d router.Decision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("output is not a Decision: %v\n%s", err, out)
	}
	if !strings.HasPrefix(d.Version, "v2@") || d.Model != "builtin" || len(d.Trace) == 0 {
		t.Errorf("decision lacks version, model or trace: %+v", d)
	}
	if !strings.Contains(out, "\n  \"action\": ") {
		t.Errorf("output is not indented JSON:\n%s", out)
	}
	if !strings.Contains(out, "华东") {
		t.Errorf("non-ASCII text should print as is:\n%s", out)
	}
	for _, want := range []string{`"errors": [`, `"params": {`, `"candidates": [`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
}

func TestRouteDefaultScopesCoverEverySkill(t *testing.T) {
	_, out, _ := routeCLI(t, "--version", v2, "看看华东区上周已发货的订单")
	var d router.Decision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Trace[0].Stage != "policy" || len(d.Trace[0].Dropped) != 0 {
		t.Errorf("default caller should keep every skill, trace %+v", d.Trace[0])
	}
}

func TestRouteScopesAndDisabled(t *testing.T) {
	code, out, errOut := routeCLI(t, "--version", v2, "--scopes", "orders:read", "--disabled", "get_order", "ORD-20261103 怎么样了")
	if code != exitcode.Pass {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d router.Decision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.Action.Acts() && d.Skill != "query_orders_by_region" {
		t.Errorf("only query_orders_by_region may act, got %s %s", d.Action, d.Skill)
	}
	dropped := strings.Join(d.Trace[0].Dropped, ",")
	if !strings.Contains(dropped, "get_order") || !strings.Contains(dropped, "refund_order") {
		t.Errorf("policy should drop the disabled and the out-of-scope skills, dropped %s", dropped)
	}
}

func TestRouteUsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "v9")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "version.yaml"), []byte("router: {top_k: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no version", []string{"hello"}, "--version is required"},
		{"no text", []string{"--version", v2}, "no request text"},
		{"blank text", []string{"--version", v2, "  "}, "no request text"},
		{"missing dir", []string{"--version", "no/such/dir", "hello"}, "no/such/dir"},
		{"load errors", []string{"--version", bad, "hello"}, "version.yaml"},
		{"bad now", []string{"--version", v2, "--now", "yesterday", "hello"}, "RFC 3339"},
		{"unknown disabled skill", []string{"--version", v2, "--disabled", "nope", "hello"}, `"nope"`},
		{"unknown judge", []string{"--version", v2, "--judge", "acme:big", "hello"}, "known judges are builtin"},
		{"unknown flag", []string{"--version", v2, "--bogus", "hello"}, "unknown flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := routeCLI(t, c.args...)
			if code != exitcode.Usage {
				t.Fatalf("exit %d, want %d; stderr %s", code, exitcode.Usage, errOut)
			}
			if out != "" {
				t.Errorf("nothing should be printed on stdout, got %s", out)
			}
			if !strings.Contains(errOut, c.want) {
				t.Errorf("stderr %q lacks %q", errOut, c.want)
			}
		})
	}
}

func TestRouteHelpExplainsDefaultScopes(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"route", "--help"}, &out, &errb); code != exitcode.Pass {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "every scope any skill of the version needs") {
		t.Errorf("help does not explain default scopes:\n%s", out.String())
	}
}
