package lint

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/routebench/routebench/router/builtin"
	"github.com/routebench/routebench/router/registry"
)

// space holds the builtin embeddings of a registry's skills: what the
// recall stage sees of each skill, in the same vector space.
type space struct {
	skills []*registry.Skill
	// profile embeds description + when_to_use; description alone.
	profile, description [][]float32
	// examples is the normalized mean of each skill's example inputs (nil
	// when a skill has none).
	examples [][]float32
}

// profileText is what the near-duplicate check compares: how the skill
// says what it is for.
func profileText(s *registry.Skill) string {
	return strings.Join(append([]string{s.Description}, s.WhenToUse...), "\n")
}

// newSpace embeds v's skills with the builtin embedder fitted as v's
// router fits it (same recall depth), so the fingerprint check's router
// reuses the fit instead of paying for a second one.
func newSpace(ctx context.Context, v *registry.Version) (*space, error) {
	models, err := builtin.Models(v, v.Registry)
	if err != nil {
		return nil, err
	}
	embed := models.Embedder
	reg := v.Registry
	sp := &space{skills: reg.Skills}
	for _, s := range reg.Skills {
		p, err := embed(ctx, profileText(s))
		if err != nil {
			return nil, err
		}
		d, err := embed(ctx, s.Description)
		if err != nil {
			return nil, err
		}
		var centroid []float32
		for _, ex := range s.Examples {
			e, err := embed(ctx, ex.Input)
			if err != nil {
				return nil, err
			}
			if centroid == nil {
				centroid = make([]float32, len(e))
			}
			for i, x := range e {
				centroid[i] += x
			}
		}
		sp.profile = append(sp.profile, p)
		sp.description = append(sp.description, d)
		sp.examples = append(sp.examples, normalize(centroid))
	}
	return sp, nil
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// nearest returns the index of the skill whose profile is closest to
// skill i's, or -1 in a one-skill registry.
func (sp *space) nearest(i int) int {
	best, bestSim := -1, -2.0
	for j := range sp.skills {
		if j == i {
			continue
		}
		if sim := cosine(sp.profile[i], sp.profile[j]); sim > bestSim {
			best, bestSim = j, sim
		}
	}
	return best
}

// fitMargin is how much closer another skill's examples must be before a
// description counts as misplaced: hashed features make smaller gaps noise.
const fitMargin = 0.02

// similarity runs the embedding-space checks: near-duplicate profiles and
// descriptions that read closer to another skill's examples than to their
// own.
func (c *checker) similarity(ctx context.Context) {
	sp := c.space(ctx)
	if sp == nil {
		return
	}
	for i, a := range sp.skills {
		for j := i + 1; j < len(sp.skills); j++ {
			b := sp.skills[j]
			sim := cosine(sp.profile[i], sp.profile[j])
			if sim <= c.opts.MaxSimilarity {
				continue
			}
			// Reported at the later skill, usually the one just added.
			c.add(Error, CheckNearDuplicate, b, b.Pos, fmt.Sprintf(
				"%s and %s (line %d) have near-duplicate descriptions (cosine %.3f > %.2f over description and when_to_use in builtin embedding space), the classic cause of misrouting; reword both to name what each acts on and its key params, or merge them",
				b.Name, a.Name, a.Pos.Line, sim, c.opts.MaxSimilarity))
		}
	}
	for i, s := range sp.skills {
		if sp.examples[i] == nil || len(sp.skills) < 2 {
			continue
		}
		own := cosine(sp.description[i], sp.examples[i])
		other, otherSim := -1, own+fitMargin
		for j := range sp.skills {
			if j == i || sp.examples[j] == nil {
				continue
			}
			if sim := cosine(sp.description[i], sp.examples[j]); sim > otherSim {
				other, otherSim = j, sim
			}
		}
		if other < 0 {
			continue
		}
		c.add(Warning, CheckDescriptionFit, s, s.Pos, fmt.Sprintf(
			"%s's description reads closer to the examples of %s (cosine %.3f) than to its own (%.3f); put the words its users say (what it acts on, its params) back into the description",
			s.Name, sp.skills[other].Name, otherSim, own))
	}
}

// space embeds the version's skills once per checker; nil (with an error
// finding) when the embedder fails.
func (c *checker) space(ctx context.Context) *space {
	if c.sp != nil || c.spErr {
		return c.sp
	}
	sp, err := newSpace(ctx, c.v)
	if err != nil {
		c.spErr = true
		c.add(Error, CheckNearDuplicate, nil, registry.Pos{File: c.v.Dir}, fmt.Sprintf("cannot embed the skills: %v", err))
		return nil
	}
	c.sp = sp
	return sp
}
