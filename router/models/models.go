// Package models turns model specs ("builtin", "openai:gpt-4.1-mini",
// "ollama:nomic-embed-text", ...) into a router.ModelFactory. The builtin
// models come from router/builtin; provider models are looked up in tables
// that a file of this package fills with RegisterJudge and RegisterEmbedder,
// so which providers exist is visible in one place, with no init() side
// effects reaching across packages.
package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/builtin"
	"github.com/routebench/routebench/router/registry"
)

// Builtin is the spec of the embedded, deterministic models.
const Builtin = "builtin"

var (
	mu        sync.RWMutex
	judges    = map[string]func(model string) (router.Judge, error){}
	embedders = map[string]func(model string) (router.EmbeddingFunc, error){}
)

// RegisterJudge makes specs "prefix:model" build a judge with fn(model).
// The prefix may be given with or without its colon. A later registration
// of the same prefix replaces the earlier one.
func RegisterJudge(prefix string, fn func(model string) (router.Judge, error)) {
	mu.Lock()
	defer mu.Unlock()
	judges[strings.TrimSuffix(prefix, ":")] = fn
}

// RegisterEmbedder makes specs "prefix:model" build an embedder with fn(model).
func RegisterEmbedder(prefix string, fn func(model string) (router.EmbeddingFunc, error)) {
	mu.Lock()
	defer mu.Unlock()
	embedders[strings.TrimSuffix(prefix, ":")] = fn
}

// Known lists the judge and embedder specs that can be built, as shown in
// error messages and --help: "builtin" and "prefix:<model>" per provider.
func Known() (judgeSpecs, embedderSpecs []string) {
	mu.RLock()
	defer mu.RUnlock()
	return known(judges), known(embedders)
}

func known[F any](table map[string]F) []string {
	out := make([]string, 0, len(table)+1)
	for p := range table {
		out = append(out, p+":<model>")
	}
	slices.Sort(out)
	return append([]string{Builtin}, out...)
}

// split parses a spec into its provider prefix and model; "" means builtin.
func split(spec string) (prefix, model string) {
	spec = strings.TrimSpace(spec)
	if spec == "" || spec == Builtin {
		return Builtin, ""
	}
	prefix, model, _ = strings.Cut(spec, ":")
	return prefix, model
}

// Factory returns a ModelFactory for a judge spec and an embedder spec.
// Builtin models are fitted to each registry they are given (they learn
// from its text); provider models are built once here, so a missing key or
// a bad spec fails before any request is routed.
func Factory(judge, embedder string) (router.ModelFactory, error) {
	jp, jm := split(judge)
	ep, em := split(embedder)
	var provJudge router.Judge
	var provEmbed router.EmbeddingFunc
	if jp != Builtin {
		mu.RLock()
		fn, ok := judges[jp]
		mu.RUnlock()
		if !ok || jm == "" {
			js, _ := Known()
			return nil, fmt.Errorf("unknown judge %q: known judges are %s", judge, strings.Join(js, ", "))
		}
		j, err := fn(jm)
		if err != nil {
			return nil, fmt.Errorf("judge %s: %w", judge, err)
		}
		provJudge = j
	}
	if ep != Builtin {
		mu.RLock()
		fn, ok := embedders[ep]
		mu.RUnlock()
		if !ok || em == "" {
			_, es := Known()
			return nil, fmt.Errorf("unknown embedder %q: known embedders are %s", embedder, strings.Join(es, ", "))
		}
		e, err := fn(em)
		if err != nil {
			return nil, fmt.Errorf("embedder %s: %w", embedder, err)
		}
		provEmbed = e
	}
	embedName := Builtin
	if provEmbed != nil {
		embedName = ep + ":" + em
	}
	return func(v *registry.Version, reg *registry.Registry) (router.Models, error) {
		if provJudge == nil && provEmbed == nil {
			m, err := builtin.Models(v, reg)
			if err != nil {
				return m, err
			}
			m.Judge = builtinJudge{m.Judge}
			return m, nil
		}
		m := router.Models{Judge: provJudge, Embedder: provEmbed, EmbedderName: embedName}
		if m.Judge == nil {
			m.Judge = builtinJudge{builtin.NewJudge(reg)}
		}
		if m.Embedder == nil {
			m.Embedder = builtin.NewEmbedder(reg)
			m.EmbedInto = builtin.NewEmbedderInto(reg)
		}
		return m, nil
	}, nil
}

// builtinJudge lets the router ask the builtin judge's extractor for the
// params of a skill a rule decided (router.ParamExtractor).
type builtinJudge struct{ j router.Judge }

func (b builtinJudge) Name() string { return b.j.Name() }

func (b builtinJudge) Judge(ctx context.Context, req router.JudgeRequest) (router.JudgeResponse, error) {
	return b.j.Judge(ctx, req)
}

func (builtinJudge) ExtractParams(s *registry.Skill, text string, now time.Time) map[string]any {
	return builtin.ExtractParams(s, text, now)
}

// ForVersion is Factory for the models a version's router settings name,
// unless overridden (an empty override keeps the version's choice).
func ForVersion(v *registry.Version, overrideJudge, overrideEmbedder string) (router.ModelFactory, error) {
	judge, embedder := JudgeSpec(v, overrideJudge), v.Router.Embedder
	if overrideEmbedder != "" {
		embedder = overrideEmbedder
	}
	return Factory(judge, embedder)
}
