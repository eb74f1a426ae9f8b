package router

import (
	"context"

	"github.com/routebench/routebench/router/registry"
)

// RecallForTest runs only the recall stage of r's own registry over the
// skills the caller's scopes allow, for recall benchmarks and ranking
// checks from the external test package.
func RecallForTest(ctx context.Context, r *Router, text string, scopes []string) ([]Candidate, error) {
	held := map[string]bool{}
	for _, s := range scopes {
		held[s] = true
	}
	var allowed []*registry.Skill
	for _, s := range r.base.reg.Skills {
		ok := true
		for _, need := range s.PermissionScope {
			ok = ok && held[need]
		}
		if ok {
			allowed = append(allowed, s)
		}
	}
	// The recall buffers come from the router's pool, as a routing's do.
	buf, _ := r.scratch.Get().(*routeScratch)
	if buf == nil {
		buf = new(routeScratch)
	}
	defer r.scratch.Put(buf)
	best, err := r.base.index.scores(ctx, text, buf)
	if err != nil {
		return nil, err
	}
	return r.base.index.rankWith(best, allowed, r.topK(), nil, buf), nil
}
