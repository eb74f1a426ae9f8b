package builtin

import (
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// Models is the builtin router.ModelFactory: a judge and an embedder both
// learned from reg's texts. The version's recall depth (top_k) is what the
// judge's calibration assumes the candidates come from.
func Models(v *registry.Version, reg *registry.Registry) (router.Models, error) {
	topK := defaultTopK
	if v != nil && v.Router.TopK > 0 {
		topK = v.Router.TopK
	}
	j := newJudge(reg, topK)
	return router.Models{
		Judge:        j,
		Embedder:     newEmbedder(reg, topK),
		EmbedInto:    newEmbedderInto(reg, topK),
		EmbedderName: "builtin",
	}, nil
}
