package router

import (
	"bytes"
	"math"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// FuzzParseVerdict holds the judge-output parser to its promise on any
// text a model may send: it never panics, and it either returns problems
// (every one a schema_error) or a verdict the router can act on (a
// non-empty skill, a confidence in [0,1], params present).
func FuzzParseVerdict(f *testing.F) {
	for _, seed := range []string{
		`{"skill":"get_order","confidence":0.9,"params":{"order_id":"ORD-00000001"}}`,
		`{"skill":"none","confidence":0.2,"params":{},"reason":"nothing fits"}`,
		"```json\n{\"skill\":\"a\",\"confidence\":1}\n```",
		`{"skill":"","confidence":2}`,
		`{"skill":null,"confidence":"high","params":[]}`,
		`[1,2,3]`, `null`, `{"skill":"a"} {"skill":"b"}`, `{"confidence":1e309}`,
	} {
		f.Add(seed)
	}
	contract := fuzzContract(f)
	f.Fuzz(func(t *testing.T, raw string) {
		for _, c := range []*jsonschema.Schema{nil, contract} {
			v, errs := parseVerdict(raw, c)
			if len(errs) > 0 {
				for _, e := range errs {
					if e.Category != CatSchemaError {
						t.Fatalf("parseVerdict(%q) problem %+v is not a schema_error", raw, e)
					}
				}
				continue
			}
			if v.Skill == "" || math.IsNaN(v.Confidence) || v.Confidence < 0 || v.Confidence > 1 || v.Params == nil {
				t.Fatalf("parseVerdict(%q) = %+v with no problems; want an actionable verdict", raw, v)
			}
		}
	})
}

// fuzzContract is the demo's contract, so validation runs on every input.
func fuzzContract(f *testing.F) *jsonschema.Schema {
	data, err := os.ReadFile("../fixtures/ops/prompts/v2/contract.schema.json")
	if err != nil {
		f.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		f.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("contract.json", doc); err != nil {
		f.Fatal(err)
	}
	sch, err := c.Compile("contract.json")
	if err != nil {
		f.Fatal(err)
	}
	return sch
}
