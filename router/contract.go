package router

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// verdict is a judge answer that parsed and met the contract.
type verdict struct {
	Skill      string
	Confidence float64
	Params     map[string]any
	Reason     string
}

// parseVerdict parses a judge's raw output and validates it against the
// version's contract schema. Every problem is returned as a schema_error;
// the router, not the judge, decides what parses, so every judge is held to
// the same rules. The shape the router itself needs (skill string,
// confidence in [0,1], params object) is checked even when a version's
// contract is looser. A single surrounding markdown code fence is tolerated,
// as chat models add one even when told not to.
func parseVerdict(raw string, contract *jsonschema.Schema) (verdict, []Error) {
	return parseVerdictQuick(raw, contract, nil)
}

// parseVerdictQuick is parseVerdict with quick, newQuickSchema(contract)
// or nil, to spare the full validator when it allows.
func parseVerdictQuick(raw string, contract *jsonschema.Schema, quick *quickSchema) (verdict, []Error) {
	text := stripFence(raw)
	var doc any
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&doc); err != nil {
		return verdict{}, []Error{{Category: CatSchemaError, Rule: "json", Message: "output is not JSON: " + err.Error()}}
	}
	if dec.More() {
		return verdict{}, []Error{{Category: CatSchemaError, Rule: "json", Message: "output holds more than one JSON value"}}
	}
	return checkVerdict(doc, contract, quick)
}

// responseVerdict is parseVerdict of resp.Raw, using resp.Value instead of
// parsing when the judge handed one over in decoded form: the same
// document, so the same verdict and the same errors.
func responseVerdict(resp JudgeResponse, contract *jsonschema.Schema, quick *quickSchema) (verdict, []Error) {
	if v, ok := resp.Value.(*Verdict); ok && v != nil {
		if !v.decodedJSON() {
			return parseVerdictQuick(resp.Raw, contract, quick)
		}
		return checkTypedVerdict(v, contract, quick)
	}
	if resp.Value != nil && isDecodedJSON(resp.Value) {
		return checkVerdict(resp.Value, contract, quick)
	}
	return parseVerdictQuick(resp.Raw, contract, quick)
}

// decodedJSON is isDecodedJSON(v.VerdictDoc()) without building the map.
func (v *Verdict) decodedJSON() bool {
	return utf8.ValidString(v.Skill) && !math.IsInf(v.Confidence, 0) && !math.IsNaN(v.Confidence) &&
		(v.Params == nil || isDecodedJSON(v.Params)) && utf8.ValidString(v.Reason)
}

// checkTypedVerdict is checkVerdict(v.VerdictDoc(), …). A verdict the quick
// check finds valid, with the shape the router needs, is read as it is;
// anything else goes through the document, so errors are worded by the
// one path that words them.
func checkTypedVerdict(v *Verdict, contract *jsonschema.Schema, quick *quickSchema) (verdict, []Error) {
	skill := strings.TrimSpace(v.Skill)
	if (contract == nil || quick != nil && quick.validVerdict(v)) && skill != "" && v.Confidence >= 0 && v.Confidence <= 1 {
		params := v.Params
		if params == nil {
			params = map[string]any{}
		}
		return verdict{Skill: skill, Confidence: v.Confidence, Params: params, Reason: v.Reason}, nil
	}
	return checkVerdict(v.VerdictDoc(), contract, quick)
}

// isDecodedJSON reports whether v has only the types encoding/json decodes
// into an any, with values a JSON round trip keeps as they are: finite
// numbers and valid UTF-8 (encoding would replace invalid bytes).
func isDecodedJSON(v any) bool {
	switch x := v.(type) {
	case nil, bool:
		return true
	case string:
		return utf8.ValidString(x)
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case []any:
		if x == nil {
			return false // encodes as null
		}
		for _, e := range x {
			if !isDecodedJSON(e) {
				return false
			}
		}
		return true
	case map[string]any:
		if x == nil {
			return false // encodes as null
		}
		for k, e := range x {
			if !utf8.ValidString(k) || !isDecodedJSON(e) {
				return false
			}
		}
		return true
	}
	return false
}

// checkVerdict validates a decoded judge answer against the contract and
// the shape the router needs (parseVerdict).
func checkVerdict(doc any, contract *jsonschema.Schema, quick *quickSchema) (verdict, []Error) {
	var errs []Error
	if contract != nil {
		errs = append(errs, schemaErrors(quick.validate(contract, doc), CatSchemaError, "")...)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return verdict{}, appendNew(errs, Error{Category: CatSchemaError, Rule: "type", Message: "output must be a JSON object"})
	}
	var v verdict
	switch s := obj["skill"].(type) {
	case string:
		v.Skill = strings.TrimSpace(s)
		if v.Skill == "" {
			errs = appendNew(errs, Error{Category: CatSchemaError, Path: "/skill", Rule: "minLength", Message: `"skill" must name a candidate or "none"`})
		}
	case nil:
		errs = appendNew(errs, Error{Category: CatSchemaError, Path: "/skill", Rule: "required", Message: `missing "skill"`})
	default:
		errs = appendNew(errs, Error{Category: CatSchemaError, Path: "/skill", Rule: "type", Message: `"skill" must be a string`})
	}
	switch c := obj["confidence"].(type) {
	case float64:
		v.Confidence = c
		if c < 0 || c > 1 {
			errs = appendNew(errs, Error{Category: CatSchemaError, Path: "/confidence", Rule: "range", Message: fmt.Sprintf(`"confidence" %v is outside [0,1]`, c)})
		}
	case nil:
		errs = appendNew(errs, Error{Category: CatSchemaError, Path: "/confidence", Rule: "required", Message: `missing "confidence"`})
	default:
		errs = appendNew(errs, Error{Category: CatSchemaError, Path: "/confidence", Rule: "type", Message: `"confidence" must be a number`})
	}
	switch p := obj["params"].(type) {
	case map[string]any:
		v.Params = p
	case nil:
		v.Params = map[string]any{}
	default:
		errs = appendNew(errs, Error{Category: CatSchemaError, Path: "/params", Rule: "type", Message: `"params" must be an object`})
	}
	v.Reason, _ = obj["reason"].(string)
	if len(errs) > 0 {
		return verdict{}, errs
	}
	return v, nil
}

// appendNew appends e unless an error with the same path and rule is
// already there (the contract schema usually reports it first).
func appendNew(errs []Error, e Error) []Error {
	for _, x := range errs {
		if x.Path == e.Path && (x.Rule == e.Rule || e.Path != "") {
			return errs
		}
	}
	return append(errs, e)
}

func stripFence(raw string) string {
	t := strings.TrimSpace(raw)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	t = strings.TrimSuffix(strings.TrimPrefix(t, "```"), "```")
	if nl := strings.IndexByte(t, '\n'); nl >= 0 && !strings.ContainsAny(t[:nl], "{[") {
		t = t[nl+1:] // the language tag, e.g. ```json
	}
	return strings.TrimSpace(t)
}

var printer = message.NewPrinter(language.English)

// schemaErrors flattens a jsonschema validation error into one Error per
// leaf: the JSON pointer of the offending value and the keyword that
// failed. A missing required property is reported at the pointer of the
// missing field, so a clarifying question can name it.
func schemaErrors(err error, category, layer string) []Error {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Error{{Category: category, Layer: layer, Rule: "schema", Message: err.Error()}}
	}
	var out []Error
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			// jsonschema lists an object's property problems in map order;
			// ordered by where they are, the same value always gives the
			// same errors in the same order.
			causes := slices.Clone(e.Causes)
			slices.SortStableFunc(causes, func(a, b *jsonschema.ValidationError) int {
				return strings.Compare(pointer(a.InstanceLocation), pointer(b.InstanceLocation))
			})
			for _, c := range causes {
				walk(c)
			}
			return
		}
		at := pointer(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				out = append(out, Error{Category: category, Layer: layer, Path: pointer(append(slices.Clone(e.InstanceLocation), m)), Rule: "required", Message: fmt.Sprintf("%s is required", m)})
			}
			return
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				out = append(out, Error{Category: category, Layer: layer, Path: pointer(append(slices.Clone(e.InstanceLocation), p)), Rule: "additionalProperties", Message: fmt.Sprintf("%s is not a known parameter", p)})
			}
			return
		}
		rule := "schema"
		if kw := e.ErrorKind.KeywordPath(); len(kw) > 0 {
			rule = kw[0]
		}
		msg := e.ErrorKind.LocalizedString(printer)
		if at != "" {
			msg = strings.TrimPrefix(at, "/") + ": " + msg
		}
		out = append(out, Error{Category: category, Layer: layer, Path: at, Rule: rule, Message: msg})
	}
	walk(ve)
	return out
}

// pointer renders a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
