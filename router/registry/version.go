package registry

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

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

// Model providers a version may name, per role (DESIGN §3). They are fixed
// here rather than read from router/models so a bad spec is a config error
// with a line at load, not a run error when the router is built.
var (
	judgeProviders    = []string{"openai", "anthropic"}
	embedderProviders = []string{"openai", "ollama"}
)

// checkModel returns what is wrong with a judge or embedder spec, or "".
func checkModel(role, spec string) string {
	providers := judgeProviders
	if role == "embedder" {
		providers = embedderProviders
	}
	accepted := DefaultModel
	for _, p := range providers {
		accepted += " | " + p + ":<model>"
	}
	if spec == DefaultModel {
		return ""
	}
	provider, model, hasColon := strings.Cut(spec, ":")
	switch {
	case !hasColon:
		msg := fmt.Sprintf("%q is not a %s (provider:model); write one of %s", spec, role, accepted)
		if s := guessModel(spec, providers); s != "" {
			msg += "; did you mean " + s + "?"
		}
		return msg
	case !contains(providers, provider):
		msg := fmt.Sprintf("%q names provider %q, which has no %s; write one of %s", spec, provider, role, accepted)
		if s := suggest(provider, providers); s != "" && model != "" {
			msg += "; did you mean " + s + ":" + model + "?"
		}
		return msg
	case model == "":
		return fmt.Sprintf("%q names no model; write %s:<model>, e.g. %s", spec, provider, exampleModel[provider])
	case strings.ContainsFunc(model, unicode.IsSpace):
		return fmt.Sprintf("%q has a space in its model name; write %s:<model> with no spaces, e.g. %s", spec, provider, exampleModel[provider])
	}
	return ""
}

var exampleModel = map[string]string{
	"openai":    "openai:gpt-4o-mini",
	"anthropic": "anthropic:claude-haiku-4-5",
	"ollama":    "ollama:nomic-embed-text",
}

// guessModel suggests a full spec for one written without its provider:
// "buildin" is builtin, and model families name their provider.
func guessModel(spec string, providers []string) string {
	if s := suggest(spec, []string{DefaultModel}); s != "" {
		return s
	}
	lower := strings.ToLower(spec)
	for _, g := range []struct{ prefix, provider string }{
		{"gpt", "openai"}, {"o1", "openai"}, {"o3", "openai"}, {"o4", "openai"}, {"text-embedding", "openai"},
		{"claude", "anthropic"}, {"nomic", "ollama"}, {"mxbai", "ollama"},
	} {
		if strings.HasPrefix(lower, g.prefix) && contains(providers, g.provider) {
			return g.provider + ":" + spec
		}
	}
	return ""
}

// versionDoc reads version.yaml: a description and the router settings.
func (f *yfile) versionDoc(root *yaml.Node) (name, desc string, rs RouterSettings) {
	rs = DefaultRouter()
	f.fields(root, "", []string{"name", "description", "router"}, func(key string, v *yaml.Node) {
		switch key {
		case "name":
			// The name goes into version ids ("name@fingerprint") and
			// output paths, so it keeps to a safe alphabet.
			if n, ok := f.str(v, key); ok {
				if !versionNameRe.MatchString(n) {
					f.problem(v, key, "is %q; use letters, digits, '.', '_' and '-' (e.g. clinc150), or leave it out to use the directory's name", n)
					return
				}
				name = n
			}
		case "description":
			desc, _ = f.str(v, key)
		case "router":
			f.router(v, key, &rs)
		}
	})
	return name, desc, rs
}

var versionNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

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
			if msg := checkModel(key, m); msg != "" {
				f.problem(v, kf, "%s", msg)
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
