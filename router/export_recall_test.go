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
	best, err := r.base.index.scores(ctx, text, nil)
	if err != nil {
		return nil, err
	}
	return r.base.index.rank(best, allowed, r.topK(), nil), nil
}
