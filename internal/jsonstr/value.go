package jsonstr

import (
	"slices"
	"strconv"
)

// AppendValue appends v as json.Marshal writes it when v is made of what
// decoded JSON and the router's params hold: null, booleans, strings,
// float64 and int numbers, and maps (keys sorted) and lists of them. ok
// is false, and the returned bytes are not to be used, for anything else,
// for a number JSON cannot hold, or past maxValueDepth levels of nesting:
// the caller then hands v to encoding/json, which knows every type and
// reports a cycle.
func AppendValue(b []byte, v any) (out []byte, ok bool) {
	return appendValue(b, v, 0)
}

// maxValueDepth bounds the nesting AppendValue writes itself.
const maxValueDepth = 64

func appendValue(b []byte, v any, depth int) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		return Append(b, x), true
	case float64:
		return AppendFloat(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	}
	if depth >= maxValueDepth {
		return b, false
	}
	var ok bool
	switch x := v.(type) {
	case []any:
		if x == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendValue(b, e, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if x == nil {
			return append(b, "null"...), true
		}
		var room [16]string // most params maps: no allocation for the keys
		keys := room[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = Append(b, k)
			b = append(b, ':')
			if b, ok = appendValue(b, x[k], depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}
