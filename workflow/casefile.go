package workflow

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/routebench/routebench/internal/yamldoc"
	"github.com/routebench/routebench/internal/yamlkind"
	"github.com/routebench/routebench/router/registry"
)

// The decoders below read the workflow parts of a case (DESIGN §11) at the
// node level, so a harness passes the nodes and gets problems with lines.
// field is the path shown in problems, e.g. "cases[3].tools_sim".

var responseFields = []string{"ok", "fault", "code", "message", "retry_after", "body", "external_id", "when", "preview"}

// DecodeToolsSim reads `tools_sim:`, a mapping of skill to its answers in
// call order (a single answer may be written without the list):
//
//	query_alerts_by_zone: [{fault: timeout}, {ok: {items: [...]}}]
//	create_ticket: [{fault: client_error, code: 409, message: "ticket exists"}]
//	delete_test_data: [{ok: {deleted: 1}, preview: {count: 14, items: [...]}, when: {env: test}}]
//
// Skills must be in reg (when reg is not nil). The error is a *registry.LoadError.
func DecodeToolsSim(file, field string, n *yaml.Node, reg *registry.Registry) (SimScript, error) {
	r := &reader{file: file}
	n = yamldoc.Resolve(n)
	out := SimScript{}
	if n.Kind != yaml.MappingNode {
		r.problem(n, field, "must be a mapping of skill name to its scripted answers, got %s", yamlkind.Of(n))
		return nil, r.err()
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], yamldoc.Resolve(n.Content[i+1])
		sf := join(field, k.Value)
		if _, dup := out[k.Value]; dup {
			r.problem(k, sf, "duplicate skill; put all its answers in one list")
			continue
		}
		if reg != nil && reg.Skill(k.Value) == nil {
			hint := "use a skill of the version's skills.yaml"
			if s := registry.Suggest(k.Value, reg.Names()); s != "" {
				hint = "did you mean " + s + "?"
			}
			r.problem(k, sf, "unknown skill %q; %s", k.Value, hint)
			continue
		}
		items := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			items = v.Content
			if len(items) == 0 {
				r.problem(v, sf, "is empty; script at least one answer, e.g. [{ok: {items: []}}]")
			}
		}
		list := []SimResponse{}
		for j, item := range items {
			if resp, ok := r.response(yamldoc.Resolve(item), index(sf, j)); ok {
				list = append(list, resp)
			}
		}
		out[k.Value] = list
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	return out, nil
}

func (r *reader) response(n *yaml.Node, field string) (SimResponse, bool) {
	resp := SimResponse{Pos: r.pos(n)}
	parts := map[string]*yaml.Node{}
	if !r.fields(n, field, responseFields, func(k string, v *yaml.Node) { parts[k] = v }) {
		return resp, false
	}
	before := len(r.list)
	switch {
	case parts["ok"] != nil && parts["fault"] != nil:
		r.problem(n, field, "has both ok and fault; an answer is one or the other")
	case parts["ok"] == nil && parts["fault"] == nil:
		r.problem(n, field, "has neither ok nor fault; write {ok: {...}} or {fault: timeout}")
	}
	if v := parts["ok"]; v != nil {
		resp.OK, _ = r.json(v, join(field, "ok"))
	}
	if v := parts["fault"]; v != nil {
		if s, ok := r.str(v, join(field, "fault")); ok {
			resp.Fault = Fault(s)
			names := make([]string, len(Faults))
			for i, f := range Faults {
				names[i] = string(f)
			}
			if !slices.Contains(names, s) {
				hint := ""
				if sug := registry.Suggest(s, names); sug != "" {
					hint = "did you mean " + sug + "? "
				}
				r.problem(v, join(field, "fault"), "unknown fault %q; %suse %s", s, hint, strings.Join(names, ", "))
			}
		}
	}
	only := map[string]Fault{"code": "", "retry_after": FaultRateLimited, "body": FaultMalformed}
	for key, fault := range only {
		v := parts[key]
		if v == nil {
			continue
		}
		switch {
		case key == "code" && resp.Fault != FaultClientError && resp.Fault != FaultServerError:
			r.problem(v, join(field, key), "belongs to client_error and server_error answers only")
		case key != "code" && resp.Fault != fault:
			r.problem(v, join(field, key), "belongs to %s answers only", fault)
		}
	}
	if v := parts["code"]; v != nil {
		code, err := strconv.Atoi(v.Value)
		lo, hi := 400, 499
		if resp.Fault == FaultServerError {
			lo, hi = 500, 599
		}
		if err != nil || v.Kind != yaml.ScalarNode || code < lo || code > hi {
			r.problem(v, join(field, "code"), "must be a status from %d to %d for %s, got %s", lo, hi, resp.Fault, yamlkind.Of(v))
		}
		resp.Code = code
	}
	if v := parts["message"]; v != nil {
		resp.Message, _ = r.str(v, join(field, "message"))
	}
	if v := parts["retry_after"]; v != nil {
		if secs, err := strconv.ParseFloat(v.Value, 64); err == nil && v.ShortTag() != "!!str" {
			resp.RetryAfter = time.Duration(secs * float64(time.Second))
			if secs <= 0 || secs > 3600 {
				r.problem(v, join(field, "retry_after"), "must be more than 0 and at most 3600 seconds")
			}
		} else if d, ok := r.duration(v, join(field, "retry_after"), time.Hour); ok {
			resp.RetryAfter = d
		}
	}
	if v := parts["body"]; v != nil {
		resp.Body, _ = r.json(v, join(field, "body"))
	}
	if v := parts["external_id"]; v != nil {
		resp.ExternalID, _ = r.str(v, join(field, "external_id"))
	}
	if v := parts["when"]; v != nil {
		w, _ := r.json(v, join(field, "when"))
		if m, ok := w.(map[string]any); ok {
			resp.When = m
		} else {
			r.problem(v, join(field, "when"), "must be a mapping of param name to value, got %s", yamlkind.Of(v))
		}
	}
	if v := parts["preview"]; v != nil {
		resp.Preview = r.preview(v, join(field, "preview"))
	}
	return resp, len(r.list) == before
}

func (r *reader) preview(n *yaml.Node, field string) *Preview {
	pv := &Preview{}
	r.fields(n, field, []string{"count", "items"}, func(k string, v *yaml.Node) {
		if k == "count" {
			c, err := strconv.Atoi(v.Value)
			if err != nil || v.ShortTag() != "!!int" || c < 0 {
				r.problem(v, join(field, k), "must be a whole number >= 0, got %s", yamlkind.Of(v))
			}
			pv.Count = c
			return
		}
		items, _ := r.json(v, join(field, k))
		list, ok := items.([]any)
		if !ok {
			r.problem(v, join(field, k), "must be a list of the items the call would affect, got %s", yamlkind.Of(v))
		}
		pv.Items = list
	})
	if pv.Count == 0 {
		pv.Count = len(pv.Items)
	}
	return pv
}

// DecodeModelScript reads `model_script:`, a list of steps, each one of:
//
//	{call: skill, params: {...}}   call a skill outside the plan
//	{retry: node}                  ask for a node to run again
//	{claim: success|failure, node: id}   say the run (or a node) worked or not
//	{follow: plan}                 run the next step of the plan
//
// Skill names are not checked: naming an unknown or disabled skill is what
// such a script may test. The error is a *registry.LoadError.
func DecodeModelScript(file, field string, n *yaml.Node) ([]Step, error) {
	r := &reader{file: file}
	n = yamldoc.Resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.problem(n, field, "must be a list of steps ({call: ...}, {retry: ...}, {claim: ...}, {follow: plan}), got %s", yamlkind.Of(n))
		return nil, r.err()
	}
	steps := []Step{}
	for i, item := range n.Content {
		item = yamldoc.Resolve(item)
		sf := index(field, i)
		st := Step{Pos: r.pos(item)}
		parts := map[string]*yaml.Node{}
		if !r.fields(item, sf, []string{"call", "params", "retry", "claim", "node", "follow"}, func(k string, v *yaml.Node) { parts[k] = v }) {
			continue
		}
		var kinds []string
		for _, k := range []string{"call", "retry", "claim", "follow"} {
			if parts[k] != nil {
				kinds = append(kinds, k)
			}
		}
		if len(kinds) != 1 {
			r.problem(item, sf, "must have exactly one of call, retry, claim or follow, got [%s]", strings.Join(kinds, ", "))
			continue
		}
		switch kinds[0] {
		case "call":
			st.Kind = StepCall
			st.Skill, _ = r.str(parts["call"], join(sf, "call"))
			if v := parts["params"]; v != nil {
				p, _ := r.json(v, join(sf, "params"))
				m, ok := p.(map[string]any)
				if !ok {
					r.problem(v, join(sf, "params"), "must be a mapping of param name to value, got %s", yamlkind.Of(v))
				}
				st.Params = m
			}
		case "retry":
			st.Kind = StepRetry
			st.Node, _ = r.str(parts["retry"], join(sf, "retry"))
		case "claim":
			st.Kind = StepClaim
			if c, ok := r.str(parts["claim"], join(sf, "claim")); ok {
				if c != "success" && c != "failure" {
					r.problem(parts["claim"], join(sf, "claim"), "%q is not a claim; write success or failure", c)
				}
				st.Claim = c
			}
			if v := parts["node"]; v != nil {
				st.Node, _ = r.str(v, join(sf, "node"))
			}
		case "follow":
			st.Kind = StepFollow
			if v, ok := r.str(parts["follow"], join(sf, "follow")); ok && v != "plan" {
				r.problem(parts["follow"], join(sf, "follow"), "%q: write follow: plan", v)
			}
		}
		for _, k := range []string{"params", "node"} {
			owner := map[string]string{"params": "call", "node": "claim"}[k]
			if parts[k] != nil && kinds[0] != owner {
				r.problem(parts[k], join(sf, k), "belongs to %s steps only", owner)
			}
		}
		steps = append(steps, st)
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	return steps, nil
}

// DecodeConfirm reads `confirm:`: one answer for every question, or a list
// answered in order (the last repeats):
//
//	confirm: {answer: yes}
//	confirm: [{answer: yes}, {answer: yes, revoke_scopes: [tickets:write]}]
//
// answer is yes, no, timeout or pending; revoke_scopes are the scopes the
// caller loses while the question is open. The error is a *registry.LoadError.
func DecodeConfirm(file, field string, n *yaml.Node) (*ScriptedConfirmer, error) {
	r := &reader{file: file}
	n = yamldoc.Resolve(n)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var answers []ConfirmResponse
	for i, item := range items {
		item = yamldoc.Resolve(item)
		af := field
		if n.Kind == yaml.SequenceNode {
			af = index(field, i)
		}
		var resp ConfirmResponse
		r.fields(item, af, []string{"answer", "revoke_scopes"}, func(k string, v *yaml.Node) {
			if k == "revoke_scopes" {
				resp.Revoked = r.strList(v, join(af, k), true)
				return
			}
			a, ok := r.str(v, join(af, k))
			if !ok {
				return
			}
			switch a {
			case "true":
				a = "yes"
			case "false":
				a = "no"
			}
			resp.Answer = Answer(a)
			if !slices.Contains([]string{string(Yes), string(No), string(Timeout), string(Pending)}, a) {
				r.problem(v, join(af, k), "%q is not an answer; write yes, no, timeout or pending", a)
			}
		})
		if item.Kind == yaml.MappingNode && resp.Answer == "" {
			r.problem(item, join(af, "answer"), "is missing; write yes, no, timeout or pending")
		}
		answers = append(answers, resp)
	}
	if err := r.err(); err != nil {
		return nil, err
	}
	return NewScriptedConfirmer(answers...), nil
}
