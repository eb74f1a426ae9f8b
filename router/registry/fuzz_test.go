package registry_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/routebench/routebench/router/registry"
)

// The loaders read files written by people and by importers, and fetched
// from git revisions; whatever those hold, a load either fails with a
// *LoadError whose every problem names its file (and its line when the
// problem is inside the file's content) or returns something the router can
// use. Run one target for a while with
//
//	go test -run '^$' -fuzz '^FuzzParseSkills$' -fuzztime 30s ./router/registry/
//	go test -run '^$' -fuzz '^FuzzLoadVersion$' -fuzztime 30s ./router/registry/
//
// Seeds are the fixtures (f.Add) and testdata/fuzz/FuzzXxx, which also
// holds every input a fuzzer found a bug with.

// wholeFile lists the messages of problems about a file as a whole, which
// have no line to show.
var wholeFile = []string{"is missing", "is empty", "cannot be read", "does not exist", "is not a directory"}

// checkProblems fails unless err is a *LoadError whose problems all name one
// of files and carry a line unless they concern a whole file.
func checkProblems(t *testing.T, err error, files ...string) {
	t.Helper()
	var le *registry.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("want a *LoadError, got %T: %v", err, err)
	}
	if len(le.Problems) == 0 {
		t.Fatal("a *LoadError without problems")
	}
	for _, p := range le.Problems {
		known := false
		for _, f := range files {
			known = known || p.Pos.File == f
		}
		if !known {
			t.Errorf("problem names file %q, not one of %v: %s", p.Pos.File, files, p)
		}
		if p.Pos.Line == 0 && !hasAnyPrefix(p.Message, wholeFile) {
			t.Errorf("problem inside a file has no line: %s", p)
		}
		if p.Message == "" || strings.ContainsRune(p.Message, 0) {
			t.Errorf("problem without a readable message: %q", p)
		}
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// checkSkills fails unless the skills are what the router needs: named,
// unique, with a compiled schema, and with examples that validate and rules
// that evaluate without a reference cycle or a panic.
func checkSkills(t *testing.T, skills []*registry.Skill) {
	t.Helper()
	reg, err := registry.New(skills)
	if err != nil {
		t.Fatalf("loaded skills do not form a registry: %v", err)
	}
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, s := range reg.Skills {
		if s.Schema == nil || s.PropSchemas == nil || s.ParamsSchema == nil {
			t.Fatalf("skill %s loaded without a compiled params schema", s.Name)
		}
		if s.SideEffect.Acts() && s.Confirm == "" {
			t.Errorf("side-effect skill %s has no gate", s.Name)
		}
		probes := []any{map[string]any{}}
		for _, ex := range s.Examples {
			if ex.Params != nil {
				probes = append(probes, ex.Params)
			}
		}
		for _, params := range probes {
			noCycle(t, s.Name, s.Schema.Validate(params))
			if m, ok := params.(map[string]any); ok {
				for name, v := range m {
					if ps := s.PropSchemas[name]; ps != nil {
						noCycle(t, s.Name+"."+name, ps.Validate(v))
					}
				}
				for _, r := range s.Rules {
					_, _ = r.Eval(m, now) // must not panic; errors are the caller's to report
				}
			}
		}
	}
}

// noCycle fails on the error a $ref cycle gives at validation: the loader
// must have rejected such a schema.
func noCycle(t *testing.T, where string, err error) {
	t.Helper()
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return
	}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if _, ok := e.ErrorKind.(*kind.RefCycle); ok {
			t.Errorf("%s: validation meets a $ref cycle the loader let through: %v", where, err)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
}

func readSeed(f *testing.F, path string) []byte {
	f.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

func FuzzParseSkills(f *testing.F) {
	// The ops fixtures' 17-31 KB registries are left out: the fuzzer
	// minimizes every new input, which takes most of a short run on files
	// that size. testdata/v1 holds every kind of field in 2.5 KB.
	f.Add(readSeed(f, "testdata/v1/skills.yaml"))
	f.Fuzz(func(t *testing.T, data []byte) {
		skills, err := registry.ParseSkills("skills.yaml", data)
		if err != nil {
			if skills != nil {
				t.Errorf("skills returned beside an error")
			}
			checkProblems(t, err, "skills.yaml")
			return
		}
		checkSkills(t, skills)
	})
}

func FuzzLoadVersion(f *testing.F) {
	skills := readSeed(f, "testdata/v1/skills.yaml") // see FuzzParseSkills on size
	for _, dir := range []string{"testdata/v1", "../../fixtures/ops/prompts/v2"} {
		f.Add(readSeed(f, filepath.Join(dir, "version.yaml")), skills,
			readSeed(f, filepath.Join(dir, "contract.schema.json")), readSeed(f, filepath.Join(dir, "persona.md")))
	}
	constraints := readSeed(f, "testdata/v1/constraints.md")
	f.Fuzz(func(t *testing.T, version, skills, contract, persona []byte) {
		fsys := fstest.MapFS{
			"v/version.yaml":         {Data: version},
			"v/skills.yaml":          {Data: skills},
			"v/contract.schema.json": {Data: contract},
			"v/persona.md":           {Data: persona},
			"v/constraints.md":       {Data: constraints},
		}
		v, err := registry.LoadFS(fsys, "v", "v")
		if err != nil {
			if v != nil {
				t.Errorf("a version returned beside an error")
			}
			files := []string{"v"}
			for _, name := range registry.VersionFiles {
				files = append(files, filepath.Join("v", name))
			}
			checkProblems(t, err, files...)
			return
		}
		if v.Registry == nil || v.Contract == nil || len(v.Fingerprint) != 64 {
			t.Fatalf("loaded version without registry, contract or fingerprint: %+v", v)
		}
		checkSkills(t, v.Registry.Skills)
		rs := v.Router
		if rs.TopK < 1 {
			t.Errorf("top_k %d loaded", rs.TopK)
		}
		for _, se := range []registry.SideEffect{registry.Read, registry.Write, registry.Delete, registry.Send} {
			exec, clar := rs.Bands.For(se)
			if exec < 0 || exec > 1 || clar < 0 || clar > exec {
				t.Errorf("bands for %s loaded as execute %v, clarify %v", se, exec, clar)
			}
		}
		for _, spec := range []string{rs.Judge, rs.Embedder} {
			if spec != "builtin" && !strings.Contains(spec, ":") {
				t.Errorf("model spec %q loaded", spec)
			}
		}
		answer := map[string]any{"skill": "none", "confidence": 0.5, "params": map[string]any{}}
		if err := v.Contract.Validate(answer); err != nil {
			t.Errorf("loaded contract rejects a well-formed answer: %v", err)
		}
		noCycle(t, "contract", v.Contract.Validate(map[string]any{"skill": "x", "confidence": 1.0, "params": map[string]any{}, "reason": "r"}))
	})
}

// FuzzParamsSchema reaches the JSON Schema compiler, the $ref cycle and
// cost checks and example validation with far fewer wasted mutations than
// whole skills.yaml files do: the fuzzed schema and example params are
// placed into one skill.
//
//	go test -run '^$' -fuzz '^FuzzParamsSchema$' -fuzztime 30s ./router/registry/
func FuzzParamsSchema(f *testing.F) {
	f.Add([]byte(`{"type": "object", "required": ["region"], "properties": {"region": {"type": "string", "enum": ["east", "west"]}, "day": {"type": "string", "format": "date"}}}`),
		[]byte(`{"region": "east", "day": "2026-11-30"}`))
	f.Add([]byte(`{"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}}}`),
		[]byte(`{"a": 1}`))
	f.Add([]byte(`{"type": "object", "properties": {"t": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": "object", "properties": {"c": {"type": "array", "items": {"$ref": "#/$defs/n"}}}}}}`),
		[]byte(`{"t": {"c": [{"c": []}]}}`))
	f.Add([]byte(`{"type": "object", "$dynamicAnchor": "m", "properties": {"x": {"$dynamicRef": "#m"}, "p": {"type": "string", "pattern": "^[a-z]+$", "x-synonyms": {"a": ["b"]}}}}`),
		[]byte(`{"x": {"x": {}}, "p": "abc"}`))
	// A recursion entered twice per level of the value must be refused, not
	// run. (The audit's chain of $defs that fan out at every level is in
	// schemacost_test.go: over the limit it takes 500+ bytes, and minimizing
	// inputs that size stalls a 30 s run.)
	f.Add([]byte(`{"type": "object", "properties": {"zz": {"$ref": "#/$defs/d"}}, "$defs": {"d": {"anyOf": [{"$ref": "#/$defs/e"}, {"$ref": "#/$defs/e"}]}, "e": {"type": "object", "properties": {"a": {"$ref": "#/$defs/d"}}}}}`),
		[]byte(`{"zz": `+strings.Repeat(`{"a": `, 20)+"1"+strings.Repeat("}", 20)+"}"))
	f.Fuzz(func(t *testing.T, schema, params []byte) {
		data := []byte("skills:\n- name: s\n  description: d\n  side_effect: read\n  params_schema:\n" + indent(schema, 4) +
			"  examples:\n  - input: x\n    params:\n" + indent(params, 6))
		skills, err := registry.ParseSkills("skills.yaml", data)
		if err != nil {
			checkProblems(t, err, "skills.yaml")
			return
		}
		checkSkills(t, skills)
	})
}

func indent(text []byte, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(strings.TrimRight(string(text), "\n"), "\n")
	for i, l := range lines {
		lines[i] = pad + l
	}
	return strings.Join(lines, "\n") + "\n"
}
