package builtin

import (
	"encoding/json"
	"github.com/routebench/routebench/internal/jsonstr"
	"slices"
	"strconv"
)

// appendVerdictJSON appends json.Marshal(v)'s bytes, written by hand: the
// verdict is encoded on every request, and reflection over its params map
// cost more than the rest of the encoding. ok is false when a value is of
// a type this encoder does not write (only what JSON decodes into: string,
// float64, bool, nil, []any, map[string]any); the caller then uses
// json.Marshal itself. The verdict-JSON spec checks it byte for byte
// against json.Marshal.
func appendVerdictJSON(b []byte, v verdict) ([]byte, bool) {
	b = append(b, `{"skill":`...)
	b = jsonstr.Append(b, v.Skill)
	b = append(b, `,"confidence":`...)
	var ok bool
	if b, ok = jsonstr.AppendFloat(b, v.Confidence); !ok {
		return b, false
	}
	b = append(b, `,"params":`...)
	if v.Params == nil {
		b = append(b, "null"...)
	} else if b, ok = appendJSONValue(b, v.Params); !ok {
		return b, false
	}
	if v.Reason != "" {
		b = append(b, `,"reason":`...)
		b = jsonstr.Append(b, v.Reason)
	}
	return append(b, '}'), true
}

func appendJSONValue(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		return jsonstr.Append(b, x), true
	case float64:
		return jsonstr.AppendFloat(b, x)
	case []any:
		if x == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSONValue(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		var keysBuf [16]string
		keys := keysBuf[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.Append(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendJSONValue(b, x[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendVerdict appends json.Marshal(v)'s bytes to b, by hand when
// appendVerdictJSON can.
func appendVerdict(b []byte, v verdict) ([]byte, error) {
	if out, ok := appendVerdictJSON(b, v); ok {
		return out, nil
	}
	// appendVerdictJSON may have written part of it.
	raw, err := json.Marshal(v)
	return append(b, raw...), err
}
