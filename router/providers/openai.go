package providers

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/routebench/routebench/router"
)

// openAIJudge asks an OpenAI-compatible chat completions endpoint (OpenAI,
// vLLM, Ollama's /v1, llama.cpp server, LM Studio) through the official SDK.
type openAIJudge struct {
	g         *Gateway
	model     string
	client    openai.Client
	toolsOff  bool
	maxTokens int64
}

// NewOpenAIJudge returns the judge "openai:<model>". Base URL and key come
// from Options.BaseURL / OPENAI_BASE_URL and OPENAI_API_KEY (or
// Options.APIKeyEnv); no key is needed to replay cassettes.
func (g *Gateway) NewOpenAIJudge(model string) router.Judge {
	opts := []option.RequestOption{
		option.WithHTTPClient(g.HTTPClient(OpenAI)),
		option.WithMaxRetries(0), // the gateway's transport owns the single retry
	}
	if base := g.baseURL(OpenAI); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	if key := g.apiKey(OpenAI); key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &openAIJudge{g: g, model: model, client: openai.NewClient(opts...), toolsOff: g.opts.ToolsOff, maxTokens: int64(g.opts.MaxTokens)}
}

func (j *openAIJudge) Name() string { return OpenAI + ":" + j.model }

func (j *openAIJudge) Judge(ctx context.Context, req router.JudgeRequest) (router.JudgeResponse, error) {
	tools := buildTools(req.Candidates)
	params := openai.ChatCompletionNewParams{
		Model:       shared.ChatModel(j.model),
		Messages:    j.messages(req),
		Temperature: openai.Float(0),
		// max_tokens rather than max_completion_tokens: every OpenAI-compatible
		// server (Ollama, LM Studio, llama.cpp, vLLM) reads it, and OpenAI
		// still does for the non-reasoning models temperature 0 allows. The
		// bound is what lets the budget reserve a call's worst case.
		MaxTokens: openai.Int(j.maxTokens),
	}
	if j.toolsOff {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   "routing_decision",
					Schema: contractSchema(req.Version),
				},
			},
		}
	} else {
		for _, t := range tools.tools {
			params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
				Name:        t.Name,
				Description: openai.String(t.Description),
				Parameters:  shared.FunctionParameters(t.Schema),
			}))
		}
		params.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")}
	}
	return j.g.judgeOnce(ctx, j.Name(), j.model, req, func(ctx context.Context) (answer, error) {
		resp, err := j.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return answer{}, err
		}
		return openAIResult(resp, tools, j.toolsOff)
	})
}

func (j *openAIJudge) messages(req router.JudgeRequest) []openai.ChatCompletionMessageParamUnion {
	var msgs []openai.ChatCompletionMessageParamUnion
	if req.SystemPrompt != "" {
		msgs = append(msgs, openai.SystemMessage(req.SystemPrompt))
	}
	for _, t := range req.Turns {
		msgs = append(msgs, openai.UserMessage(earlierText(t)), openai.AssistantMessage(t.Decision.Summary()))
	}
	msgs = append(msgs, openai.UserMessage(userTurn(req, j.toolsOff)))
	if req.Repair != nil {
		msgs = append(msgs,
			openai.AssistantMessage(previousAnswer(req.Repair)),
			openai.UserMessage(repairTurn(req.Repair, j.toolsOff)))
	}
	return msgs
}
