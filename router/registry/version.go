package registry

import (
	"regexp"

	"go.yaml.in/yaml/v3"
)

// Defaults for what version.yaml leaves out (DESIGN §3).
const (
	DefaultTopK     = 5
	DefaultModel    = "builtin"
	DefaultExecute  = 0.85
	DefaultClarify  = 0.60
	versionFileName = "version.yaml"
)

// DefaultRouter returns the router settings of a version.yaml without a router block.
func DefaultRouter() RouterSettings {
	return RouterSettings{
		TopK:     DefaultTopK,
		Embedder: DefaultModel,
		Judge:    DefaultModel,
		Bands:    Bands{Execute: DefaultExecute, Clarify: DefaultClarify, SideEffects: map[SideEffect]Band{}},
	}
}

var modelRef = regexp.MustCompile(`^(builtin|[a-z][a-z0-9_-]*:\S+)$`)

// versionDoc reads version.yaml: a description and the router settings.
func (f *yfile) versionDoc(root *yaml.Node) (string, RouterSettings) {
	rs := DefaultRouter()
	var desc string
	f.fields(root, "", []string{"description", "router"}, func(key string, v *yaml.Node) {
		switch key {
		case "description":
			desc, _ = f.str(v, key)
		case "router":
			f.router(v, key, &rs)
		}
	})
	return desc, rs
}

func (f *yfile) router(n *yaml.Node, field string, rs *RouterSettings) {
	f.fields(n, field, []string{"top_k", "embedder", "judge", "bands"}, func(key string, v *yaml.Node) {
		kf := join(field, key)
		switch key {
		case "top_k":
			if k, ok := f.integer(v, kf); ok {
				if k < 1 {
					f.problem(v, kf, "is %d; recall needs at least 1 candidate (default %d)", k, DefaultTopK)
				}
				rs.TopK = k
			}
		case "embedder", "judge":
			m, ok := f.str(v, kf)
			if !ok {
				return
			}
			if !modelRef.MatchString(m) {
				f.problem(v, kf, "%q is not a model reference; write builtin or provider:model (e.g. openai:gpt-4o-mini, ollama:nomic-embed-text)", m)
			}
			if key == "embedder" {
				rs.Embedder = m
			} else {
				rs.Judge = m
			}
		case "bands":
			f.bands(v, kf, &rs.Bands)
		}
	})
}

func (f *yfile) bands(n *yaml.Node, field string, b *Bands) {
	var clarifyNode *yaml.Node
	seNodes := map[SideEffect]*yaml.Node{}
	ok := f.fields(n, field, []string{"execute", "clarify", "side_effects"}, func(key string, v *yaml.Node) {
		kf := join(field, key)
		switch key {
		case "execute":
			b.Execute, _ = f.threshold(v, kf, b.Execute)
		case "clarify":
			clarifyNode = v
			b.Clarify, _ = f.threshold(v, kf, b.Clarify)
		case "side_effects":
			f.pairs(v, kf, func(k, bv *yaml.Node) {
				se := SideEffect(k.Value)
				sf := join(kf, k.Value)
				switch se {
				case Read, Write, Delete, Send:
				default:
					hint := ""
					if s := suggest(k.Value, []string{"read", "write", "delete", "send"}); s != "" {
						hint = " (did you mean " + s + "?)"
					}
					f.problem(k, sf, "is not a side effect%s; use read, write, delete or send", hint)
					return
				}
				var band Band
				f.fields(bv, sf, []string{"execute", "clarify"}, func(bk string, tv *yaml.Node) {
					if bk == "execute" {
						band.Execute, _ = f.threshold(tv, join(sf, bk), 0)
					} else {
						band.Clarify, _ = f.threshold(tv, join(sf, bk), 0)
					}
				})
				b.SideEffects[se] = band
				seNodes[se] = k
			})
		}
	})
	if !ok {
		return
	}
	if b.Clarify > b.Execute {
		at := n
		if clarifyNode != nil {
			at = clarifyNode
		}
		f.problem(at, join(field, "clarify"), "%.2f is above execute %.2f; clarify must be <= execute (confidence below clarify refuses, between them asks)",
			b.Clarify, b.Execute)
	}
	for _, se := range []SideEffect{Read, Write, Delete, Send} {
		node, set := seNodes[se]
		if !set {
			continue
		}
		exec, clar := b.For(se)
		if clar > exec {
			f.problem(node, join(field, "side_effects."+string(se)), "clarify %.2f is above execute %.2f; raise execute or lower clarify", clar, exec)
		}
	}
}

// threshold reads a confidence threshold in [0,1].
func (f *yfile) threshold(n *yaml.Node, field string, fallback float64) (float64, bool) {
	v, ok := f.number(n, field)
	if !ok {
		return fallback, false
	}
	if v < 0 || v > 1 {
		f.problem(n, field, "%g is outside [0,1]; thresholds are confidences, e.g. 0.85", v)
		return fallback, false
	}
	return v, true
}
