package builtin

import (
	"encoding/json"

	"github.com/routebench/routebench/internal/jsonstr"
)

// appendVerdictJSON appends json.Marshal(v)'s bytes, written by hand: the
// verdict is encoded on every request, and reflection over its params map
// cost more than the rest of the encoding. ok is false when a value is of
// a type this encoder does not write (see jsonstr.AppendValue); the
// caller then uses json.Marshal itself. The verdict-JSON spec checks it byte for byte
// against json.Marshal. reasonJSON is v.Reason's JSON string when the
// caller wrote it already (nil: it is escaped here).
func appendVerdictJSON(b []byte, v verdict, reasonJSON []byte) ([]byte, bool) {
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
	} else if b, ok = jsonstr.AppendValue(b, v.Params); !ok {
		return b, false
	}
	if v.Reason != "" {
		b = append(b, `,"reason":`...)
		if reasonJSON != nil {
			b = append(b, reasonJSON...)
		} else {
			b = jsonstr.Append(b, v.Reason)
		}
	}
	return append(b, '}'), true
}

// appendVerdict appends json.Marshal(v)'s bytes to b, by hand when
// appendVerdictJSON can.
func appendVerdict(b []byte, v verdict, reasonJSON []byte) ([]byte, error) {
	if out, ok := appendVerdictJSON(b, v, reasonJSON); ok {
		return out, nil
	}
	// appendVerdictJSON may have written part of it.
	raw, err := json.Marshal(v)
	return append(b, raw...), err
}
