package router_test

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// fakeEmbed is a deterministic, normalized bag of words: lowercase Latin
// words, Han characters and Han bigrams hashed into 512 dimensions.
func fakeEmbed(_ context.Context, text string) ([]float32, error) {
	const dim = 512
	v := make([]float32, dim)
	add := func(tok string) {
		h := fnv.New32a()
		h.Write([]byte(tok))
		v[h.Sum32()%dim]++
	}
	var word []rune
	var prevHan rune
	flush := func() {
		if len(word) > 0 {
			add(string(word))
			word = word[:0]
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.Is(unicode.Han, r):
			flush()
			add(string(r))
			if prevHan != 0 {
				add(string([]rune{prevHan, r}))
			}
			prevHan = r
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			word = append(word, r)
		default:
			flush()
		}
		prevHan = 0
	}
	flush()
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	if n == 0 {
		return v, nil
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v, nil
}

// scriptJudge answers with a script and records every request it saw.
type scriptJudge struct {
	name   string
	answer func(req router.JudgeRequest, call int) (router.JudgeResponse, error)

	mu    sync.Mutex
	calls []router.JudgeRequest
}

func (j *scriptJudge) Name() string { return j.name }

func (j *scriptJudge) Judge(ctx context.Context, req router.JudgeRequest) (router.JudgeResponse, error) {
	j.mu.Lock()
	j.calls = append(j.calls, req)
	n := len(j.calls)
	j.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return router.JudgeResponse{}, err
	}
	return j.answer(req, n)
}

func (j *scriptJudge) Calls() []router.JudgeRequest {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]router.JudgeRequest(nil), j.calls...)
}

// always answers the same contract JSON every call.
func always(skill string, conf float64, params map[string]any) func(router.JudgeRequest, int) (router.JudgeResponse, error) {
	return func(router.JudgeRequest, int) (router.JudgeResponse, error) {
		return answer(skill, conf, params), nil
	}
}

// sequence answers the raw outputs in turn (the last one repeats).
func sequence(raws ...string) func(router.JudgeRequest, int) (router.JudgeResponse, error) {
	return func(_ router.JudgeRequest, call int) (router.JudgeResponse, error) {
		return router.JudgeResponse{Raw: raws[min(call, len(raws))-1]}, nil
	}
}

func failing(msg string) func(router.JudgeRequest, int) (router.JudgeResponse, error) {
	return func(router.JudgeRequest, int) (router.JudgeResponse, error) {
		return router.JudgeResponse{}, errors.New(msg)
	}
}

func answer(skill string, conf float64, params map[string]any) router.JudgeResponse {
	return router.JudgeResponse{Raw: rawAnswer(skill, conf, params)}
}

func rawAnswer(skill string, conf float64, params map[string]any) string {
	if params == nil {
		params = map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"skill": skill, "confidence": conf, "params": params})
	return string(b)
}

// fixedFactory hands out the given judge with the fake embedder, counting
// how many skill sets it was asked to fit.
type fixedFactory struct {
	judge router.Judge
	mu    sync.Mutex
	regs  []*registry.Registry
}

func (f *fixedFactory) build(_ *registry.Version, reg *registry.Registry) (router.Models, error) {
	f.mu.Lock()
	f.regs = append(f.regs, reg)
	f.mu.Unlock()
	return router.Models{Judge: f.judge, Embedder: fakeEmbed, EmbedderName: "fake"}, nil
}

func (f *fixedFactory) built() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.regs)
}

// extractingJudge is a scriptJudge that can also extract params on demand
// (router.ParamExtractor), as the builtin judge does through router/models.
type extractingJudge struct {
	*scriptJudge
	params map[string]any
}

func (j extractingJudge) ExtractParams(*registry.Skill, string, time.Time) map[string]any {
	return j.params
}
