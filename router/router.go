package router

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/routebench/routebench/router/registry"
)

// defaultTopK is used when a version's router settings leave top_k unset.
const defaultTopK = 5

// toolsCacheSize bounds the skill sets kept for per-request tools. Suites
// that carry tools reuse one registry pointer across versions' runs only
// within a router, so a small FIFO is enough and memory stays flat.
const toolsCacheSize = 128

// Router routes requests for one prompt version. It is safe for concurrent
// use.
type Router struct {
	v       *registry.Version
	id      string // v.ID(), worked out once
	factory ModelFactory
	base    *skillSet
	// contract is newQuickSchema(v.Contract): the judge's answer checked
	// without the full validator when it allows.
	contract *quickSchema

	mu    sync.Mutex
	tools map[*registry.Registry]*toolsEntry
	fifo  []*registry.Registry

	// scratch pools recall's per-request buffers (*routeScratch).
	scratch sync.Pool
	// routings pools the state of a request being routed (*routing),
	// less its decisionRoom: a routing is about 1 KB the decision never
	// points into.
	routings sync.Pool
	// bandNotes holds the bands stage's note per side effect and action
	// (bandKey -> string): the bands are the version's, so each note is
	// written once, not on every acting decision.
	bandNotes sync.Map
}

// skillSet is everything precomputed for one registry: its models, its
// recall index and each skill's prompt section.
type skillSet struct {
	reg      *registry.Registry
	models   Models
	index    *recallIndex
	byName   map[string]*registry.Skill
	sections map[*registry.Skill]string
	triggers triggerIndex
	// quick holds each skill's params schema for validation without the
	// full validator's allocations when it allows (newQuickSchema).
	quick map[*registry.Skill]*quickSchema
}

type toolsEntry struct {
	ready chan struct{}
	set   *skillSet
	err   error
}

// New builds a router for v: models fitted to v's registry by factory, the
// recall index over every skill's description, when_to_use and examples,
// and the prompt sections judges see.
func New(v *registry.Version, factory ModelFactory) (*Router, error) {
	return NewReporting(v, factory, nil)
}

// BuildPhase is one step of building a router, for progress output:
// Step "fitting" the models to Count skills, then "indexing" Count texts
// (descriptions, when_to_use lines and examples) for recall.
type BuildPhase struct {
	Version string
	Step    string
	Count   int
}

// NewReporting is New calling report (when not nil) as each step of the
// build starts: on a large registry the build takes tens of seconds before
// the first case is routed. It changes nothing that is built.
func NewReporting(v *registry.Version, factory ModelFactory, report func(BuildPhase)) (*Router, error) {
	if v == nil || v.Registry == nil {
		return nil, errors.New("new router: version has no registry")
	}
	if factory == nil {
		return nil, errors.New("new router: no model factory")
	}
	r := &Router{v: v, id: v.ID(), factory: factory, tools: map[*registry.Registry]*toolsEntry{}, contract: newQuickSchema(v.Contract)}
	set, err := r.buildSet(context.Background(), v.Registry, report)
	if err != nil {
		return nil, fmt.Errorf("new router for %s: %w", v.ID(), err)
	}
	r.base = set
	return r, nil
}

// Version is the prompt version the router serves.
func (r *Router) Version() *registry.Version { return r.v }

// Models are the models fitted to the version's own registry.
func (r *Router) Models() Models { return r.base.models }

// buildSet fits the models to reg and indexes it for recall, calling report
// (when not nil) as each step starts; only New reports, for the base set, as
// tool registries are built while routing.
func (r *Router) buildSet(ctx context.Context, reg *registry.Registry, report func(BuildPhase)) (*skillSet, error) {
	if report != nil {
		report(BuildPhase{Version: r.v.ID(), Step: "fitting", Count: len(reg.Skills)})
	}
	models, err := r.factory(r.v, reg)
	if err != nil {
		return nil, fmt.Errorf("build models: %w", err)
	}
	if models.Judge == nil || models.Embedder == nil {
		return nil, errors.New("build models: factory returned no judge or no embedder")
	}
	if report != nil {
		n := 0
		for _, sk := range reg.Skills {
			n += len(skillDocs(sk))
		}
		report(BuildPhase{Version: r.v.ID(), Step: "indexing", Count: n})
	}
	index, err := buildIndex(ctx, reg.Skills, models.Embedder)
	if err != nil {
		return nil, fmt.Errorf("build recall index: %w", err)
	}
	index.embedInto = models.EmbedInto
	set := &skillSet{
		reg:      reg,
		models:   models,
		index:    index,
		byName:   make(map[string]*registry.Skill, len(reg.Skills)),
		sections: make(map[*registry.Skill]string, len(reg.Skills)),
		quick:    make(map[*registry.Skill]*quickSchema, len(reg.Skills)),
	}
	for _, s := range reg.Skills {
		set.byName[s.Name] = s
		set.sections[s] = skillSection(s)
		set.quick[s] = newQuickSchema(s.Schema)
	}
	set.triggers = newTriggerIndex(reg.Skills)
	return set, nil
}

// setFor returns the skill set for a request: the version's own, or one
// built (once, then cached by pointer) for the request's tools.
func (r *Router) setFor(ctx context.Context, tools *registry.Registry) (*skillSet, error) {
	if tools == nil || tools == r.v.Registry {
		return r.base, nil
	}
	r.mu.Lock()
	e, ok := r.tools[tools]
	if !ok {
		e = &toolsEntry{ready: make(chan struct{})}
		r.tools[tools] = e
		r.fifo = append(r.fifo, tools)
		if len(r.fifo) > toolsCacheSize {
			delete(r.tools, r.fifo[0])
			r.fifo = r.fifo[1:]
		}
	}
	r.mu.Unlock()
	if !ok {
		// Built without the request's context: a cancelled request must not
		// leave a broken entry behind for the next one.
		e.set, e.err = r.buildSet(context.Background(), tools, nil)
		close(e.ready)
		if e.err != nil {
			r.forget(tools, e)
		}
	}
	select {
	case <-e.ready:
		return e.set, e.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (r *Router) forget(tools *registry.Registry, e *toolsEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools[tools] == e {
		delete(r.tools, tools)
	}
}

// Route decides what to do with one request (DESIGN §4). The error is only
// for a cancelled context; every other failure is a Decision, with action
// "error" when the judge itself failed.
func (r *Router) Route(ctx context.Context, req Request) (Decision, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return Decision{}, err
	}
	now := req.Now
	if now.IsZero() {
		now = time.Now()
	}
	rt := r.newRouting(req, now)
	var err error
	if len(req.Turns) > 0 {
		err = rt.converse(ctx)
	} else {
		err = rt.run(ctx)
	}
	// A request on its own may be about a skill policy dropped, and then
	// the refusal names it. A follow-up's text ("the harbor depot") is not a
	// request on its own, so it is not diagnosed alone.
	if err == nil && len(req.Turns) == 0 {
		err = rt.explainDropped(ctx)
	}
	d := rt.d
	r.putRouting(rt)
	if err != nil {
		return Decision{}, err
	}
	if d.Params == nil {
		d.Params = map[string]any{}
	}
	d.LatencyUS = time.Since(start).Microseconds()
	return d, nil
}

// newRouting is the state a request starts from. The decision's params
// stay nil until a stage sets them (Route gives a decision that never
// does an empty map): most decisions replace them anyway.
//
// The routing comes from the router's pool: whoever has it gives it back
// (putRouting) once its decision is copied out, and keeps no pointer to
// it after.
func (r *Router) newRouting(req Request, now time.Time) *routing {
	rt, _ := r.routings.Get().(*routing)
	if rt == nil {
		rt = new(routing)
	}
	*rt = routing{
		r:    r,
		req:  req,
		text: strings.TrimSpace(req.Text),
		now:  now,
		held: scopeSet(req.Caller),
		d: Decision{
			Candidates: []Candidate{},
			Errors:     []Error{},
			Version:    r.id,
			Model:      r.base.models.Judge.Name(),
		},
		room: new(decisionRoom),
	}
	rt.d.Trace = rt.room.trace[:0]
	return rt
}

// putRouting gives rt back to the pool, with its recall buffers; it is
// cleared first, so the pool holds no decision, request or skill alive.
func (r *Router) putRouting(rt *routing) {
	rt.release()
	*rt = routing{}
	r.routings.Put(rt)
}

// topK is the version's recall width.
func (r *Router) topK() int {
	if r.v.Router.TopK > 0 {
		return r.v.Router.TopK
	}
	return defaultTopK
}

// isBuiltinJudge tells deterministic builtin judges (which would answer a
// repair request exactly as before) from model judges worth one repair.
func isBuiltinJudge(j Judge) bool { return j.Name() == "builtin" }
