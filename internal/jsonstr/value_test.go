package jsonstr

import (
	"encoding/json"
	"math"
	"testing"
)

func TestAppendValueMatchesEncodingJSON(t *testing.T) {
	for _, v := range []any{
		nil, true, "a <b> & c", 2.5, 1e21, -0.000001, 42, -7,
		[]any{}, []any(nil), map[string]any{}, map[string]any(nil),
		map[string]any{"zone": "华东", "n": 3, "x": 0.1, "ok": false, "none": nil, "list": []any{"a", 1.0, []any{2}}},
		map[string]any{"q": "k", "b": "j", "p": "i", "o": "h", "n": "g", "m": "f", "l": "e", "k": "d", "j": "c",
			"i": "b", "h": "a", "g": 1, "f": 2, "e": 3, "d": 4, "c": 5, "a": 6}, // more keys than the stack room
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := AppendValue([]byte("x"), v)
		if !ok || string(got) != "x"+string(want) {
			t.Errorf("AppendValue(%#v) = %s, %v; want %s", v, got, ok, want)
		}
	}
}

func TestAppendValueLeavesTheRestToEncodingJSON(t *testing.T) {
	deep := any("leaf")
	for range maxValueDepth + 1 {
		deep = []any{deep}
	}
	for _, v := range []any{int64(3), []string{"x"}, map[string]any{"n": math.Inf(1)}, []any{math.NaN()}, deep} {
		if _, ok := AppendValue(nil, v); ok {
			t.Errorf("AppendValue(%T) wrote it itself", v)
		}
	}
	shallow := any("leaf")
	for range maxValueDepth {
		shallow = []any{shallow}
	}
	if _, ok := AppendValue(nil, shallow); !ok {
		t.Error("AppendValue refused a value nested maxValueDepth deep")
	}
}
