package harness

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// interner lets the cases of one load share what they repeat: suites say
// the same skill names, tag lists, scopes and expected params over and
// over, and a loaded case kept its own copy of each (a params map alone is
// about 700 bytes), so a run's memory grew by far more than its cases'
// text. Cases are read-only once loaded (code that changes an expectation,
// such as masking, builds a new map), so sharing is safe. Lists are
// clipped, so an append copies instead of writing into a shared array.
// Case ids, inputs and hashes are not shared: they are unique. What a
// held case keeps is its own copy, never a slice of the file's text (the
// parser's values are: one kept value would keep its whole batch of
// cases' text in memory).
type interner struct {
	strs   map[string]string
	lists  map[string][]string
	params map[string]map[string]ParamMatcher
	// key is the buffer list and paramsMap write their keys into: a
	// lookup by string(key) copies nothing, so a value seen before costs
	// no allocation.
	key []byte
	// tags is mergedTags' buffer.
	tags []string
}

func newInterner() *interner {
	return &interner{strs: map[string]string{}, lists: map[string][]string{}, params: map[string]map[string]ParamMatcher{}}
}

func (in *interner) str(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in.strs[s]; ok {
		return v
	}
	s = strings.Clone(s)
	in.strs[s] = s
	return s
}

// list shares equal lists; nil and empty stay as they are (JSON tells
// them apart where omitempty is not set).
func (in *interner) list(l []string) []string {
	if len(l) == 0 {
		return l
	}
	key := in.key[:0]
	for i, s := range l {
		if i > 0 {
			key = append(key, 0)
		}
		key = append(key, s...)
	}
	in.key = key
	if v, ok := in.lists[string(key)]; ok {
		return v
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = in.str(s)
	}
	out = slices.Clip(out)
	in.lists[string(key)] = out
	return out
}

// mergedTags is list(mergeTags(defaults, own)), merged in a buffer so
// a tag list seen before costs no allocation.
func (in *interner) mergedTags(defaults, own []string) []string {
	if len(defaults) == 0 {
		return in.list(own)
	}
	merged := append(in.tags[:0], defaults...)
	for _, t := range own {
		if !slices.Contains(merged, t) {
			merged = append(merged, t)
		}
	}
	in.tags = merged
	shared := in.list(merged)
	clear(merged) // the buffer holds no strings past its use
	return shared
}

func (in *interner) listPtr(l *[]string) *[]string {
	if l == nil {
		return nil
	}
	v := in.list(*l)
	return &v
}

// paramsMap shares equal expected params. The key spells out the map's
// value (its keys sorted, every value with its type: "" is not nil, 1 is
// not "1"), so only maps that are the same value share: appendParamsKey's
// key, or for values it does not spell, the map in Go syntax (%#v sorts
// map keys and tells types apart), the two kinds told apart by their
// first byte. The map kept is a copy with its own texts.
func (in *interner) paramsMap(m map[string]ParamMatcher) map[string]ParamMatcher {
	if len(m) == 0 {
		return m
	}
	key, ok := appendParamsKey(append(in.key[:0], 'k'), m)
	if !ok {
		key = fmt.Appendf(key[:0], "#%#v", m)
	}
	in.key = key
	if v, ok := in.params[string(key)]; ok {
		return v
	}
	m = cloneParams(m)
	in.params[string(key)] = m
	return m
}

// cloneParams copies expected params with their own copies of every
// name and text.
func cloneParams(m map[string]ParamMatcher) map[string]ParamMatcher {
	out := make(map[string]ParamMatcher, len(m))
	for name, pm := range m {
		pm.Equals = cloneValue(pm.Equals)
		if pm.AnyOf != nil {
			pm.AnyOf = cloneValue(pm.AnyOf).([]any)
		}
		pm.Regex = strings.Clone(pm.Regex)
		out[strings.Clone(name)] = pm
	}
	return out
}

// cloneValue copies a value decoded from YAML with its own copies of its
// texts; other values hold none.
func cloneValue(v any) any {
	switch v := v.(type) {
	case string:
		return strings.Clone(v)
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = cloneValue(x)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[strings.Clone(k)] = cloneValue(x)
		}
		return out
	}
	return v
}

// appendParamsKey appends a text that is the same for two params maps
// exactly when they are the same value; ok is false when a value is of a
// type it does not spell (nodeValue gives none).
func appendParamsKey(b []byte, m map[string]ParamMatcher) ([]byte, bool) {
	var small [8]string
	names := small[:0]
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	ok := true
	for _, name := range names {
		pm := m[name]
		b = appendKeyText(b, name)
		b, ok = appendValueKey(b, pm.Equals)
		if !ok {
			return b, false
		}
		if pm.AnyOf != nil {
			if b, ok = appendValueKey(append(b, 'A'), pm.AnyOf); !ok {
				return b, false
			}
		}
		b = appendKeyText(append(b, 'R'), pm.Regex)
		b = append(b, keyBool(pm.Absent), keyBool(pm.Optional))
	}
	return b, true
}

// appendKeyText appends s with its length, so no text can run into what
// follows it.
func appendKeyText(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

func keyBool(v bool) byte {
	if v {
		return 't'
	}
	return 'f'
}

// appendValueKey appends a value decoded from YAML, each kind of value
// with its own mark.
func appendValueKey(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, 'n'), true
	case string:
		return appendKeyText(append(b, 's'), v), true
	case bool:
		return append(b, 'b', keyBool(v)), true
	case float64:
		return strconv.AppendUint(append(b, 'd'), math.Float64bits(v), 16), true
	case []any:
		b = strconv.AppendInt(append(b, 'l'), int64(len(v)), 10)
		ok := true
		for _, x := range v {
			if b, ok = appendValueKey(append(b, ','), x); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		names := make([]string, 0, len(v))
		for name := range v {
			names = append(names, name)
		}
		slices.Sort(names)
		b = strconv.AppendInt(append(b, 'm'), int64(len(v)), 10)
		ok := true
		for _, name := range names {
			b = appendKeyText(append(b, ','), name)
			if b, ok = appendValueKey(b, v[name]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

func (in *interner) caller(c router.Caller) router.Caller {
	c.Scopes, c.Disabled = in.list(c.Scopes), in.list(c.Disabled)
	return c
}

func (in *interner) expect(e *Expect) {
	e.Action = router.Action(in.str(string(e.Action)))
	e.Skill = in.str(e.Skill)
	e.Gate = registry.Gate(in.str(string(e.Gate)))
	e.Params = in.paramsMap(e.Params)
	e.Candidates = in.list(e.Candidates)
	e.Never = in.list(e.Never)
	e.Outcome, e.StoppedAt, e.Reason = in.str(e.Outcome), in.str(e.StoppedAt), in.str(e.Reason)
	e.ErrorCode = in.str(e.ErrorCode)
	e.SkillUsed = in.str(e.SkillUsed)
	e.Calls = in.listPtr(e.Calls)
}

// compact makes a loaded case share what it repeats with earlier ones,
// and copies what it does not.
func (in *interner) compact(c *Case) {
	c.Input = strings.Clone(c.Input) // the id was copied when it was checked for duplicates
	c.Suite = in.str(c.Suite)
	c.Tags = in.list(c.Tags)
	c.Caller = in.caller(c.Caller)
	c.Now = in.str(c.Now)
	c.Pos.File = in.str(c.Pos.File)
	in.expect(&c.Expect)
	for i := range c.Turns {
		c.Turns[i].Input = strings.Clone(c.Turns[i].Input)
		in.expect(&c.Turns[i].Expect)
		c.Turns[i].Pos.File = in.str(c.Turns[i].Pos.File)
	}
}
