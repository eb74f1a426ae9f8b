package harness

import (
	"fmt"
	"slices"
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
// Case ids, inputs and hashes are left alone: they are unique.
type interner struct {
	strs   map[string]string
	lists  map[string][]string
	params map[string]map[string]ParamMatcher
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
	in.strs[s] = s
	return s
}

// list shares equal lists; nil and empty stay as they are (JSON tells
// them apart where omitempty is not set).
func (in *interner) list(l []string) []string {
	if len(l) == 0 {
		return l
	}
	key := strings.Join(l, "\x00")
	if v, ok := in.lists[key]; ok {
		return v
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = in.str(s)
	}
	out = slices.Clip(out)
	in.lists[key] = out
	return out
}

func (in *interner) listPtr(l *[]string) *[]string {
	if l == nil {
		return nil
	}
	v := in.list(*l)
	return &v
}

// paramsMap shares equal expected params. The key is the map in Go syntax
// (%#v sorts map keys and tells "" from nil and 1 from "1"), so only maps
// that are the same value share.
func (in *interner) paramsMap(m map[string]ParamMatcher) map[string]ParamMatcher {
	if len(m) == 0 {
		return m
	}
	key := fmt.Sprintf("%#v", m)
	if v, ok := in.params[key]; ok {
		return v
	}
	in.params[key] = m
	return m
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
	e.SkillUsed = in.str(e.SkillUsed)
	e.Calls = in.listPtr(e.Calls)
}

// compact makes a loaded case share what it repeats with earlier ones.
func (in *interner) compact(c *Case) {
	c.Suite = in.str(c.Suite)
	c.Tags = in.list(c.Tags)
	c.Caller = in.caller(c.Caller)
	c.Now = in.str(c.Now)
	c.Pos.File = in.str(c.Pos.File)
	in.expect(&c.Expect)
	for i := range c.Turns {
		in.expect(&c.Turns[i].Expect)
		c.Turns[i].Pos.File = in.str(c.Turns[i].Pos.File)
	}
}
