package workflow

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// SampleSize is how many items of a list pass on to later steps and how many
// a batch confirmation shows: the context budget of DESIGN §11.
const SampleSize = 3

// Summary is what later steps see of a node's output: the count, the first
// items, the ref of the raw output kept in the store, and the skill that
// produced it, so an empty answer can be told from a wrong tool.
type Summary struct {
	Ref       string `json:"ref"`
	Count     int    `json:"count"`
	Items     []any  `json:"items,omitempty"`
	Empty     bool   `json:"empty,omitempty"`
	SkillUsed string `json:"skill_used,omitempty"`
}

// summarize returns the summary of an output and the view templates read:
// the output's own fields with lists cut to SampleSize, plus ref, count,
// items, empty and skill_used.
func summarize(output any, ref, skill string) (Summary, map[string]any) {
	s := Summary{Ref: ref, SkillUsed: skill}
	view := map[string]any{}
	switch x := output.(type) {
	case nil:
		s.Empty = true
	case []any:
		s.Count, s.Items = len(x), sample(x)
	case map[string]any:
		for k, v := range x {
			if list, ok := v.([]any); ok {
				v = sample(list)
			}
			view[k] = v
		}
		if items, ok := x["items"].([]any); ok {
			s.Count, s.Items = len(items), sample(items)
		} else if n, ok := x["count"].(float64); ok {
			s.Count = int(n)
		} else if len(x) > 0 {
			s.Count = 1
		}
		s.Empty = len(x) == 0 || (s.Count == 0 && x["items"] != nil)
	default:
		s.Count = 1
		view["value"] = x
	}
	if s.Items == nil {
		s.Items = []any{}
	}
	view["ref"], view["count"], view["items"] = s.Ref, float64(s.Count), s.Items
	view["empty"], view["skill_used"] = s.Empty, skill
	return s, view
}

func sample(list []any) []any {
	return append([]any{}, list[:min(len(list), SampleSize)]...)
}

// mustCanonical is the JSON of a value decoded from JSON: encoding/json
// sorts map keys, so equal values give equal bytes.
func mustCanonical(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only JSON values reach here; anything else is a programming error.
		panic("workflow: value is not JSON: " + err.Error())
	}
	return b
}

// hashOf is the hex sha256 of the canonical JSON of each part, NUL-separated.
func hashOf(parts ...any) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write(mustCanonical(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// normalize turns any Go value into plain JSON values (float64 numbers), so
// params from a harness hash and validate like params from YAML.
func normalize(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}
