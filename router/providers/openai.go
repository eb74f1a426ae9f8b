package providers

import (
	"context"
	"errors"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/routebench/routebench/router"
)

// openAIJudge asks an OpenAI-compatible chat completions endpoint (OpenAI,
// vLLM, Ollama's /v1, llama.cpp server, LM Studio) through the official SDK.
type openAIJudge struct {
	g        *Gateway
	model    string
	client   openai.Client
	toolsOff bool
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
	return &openAIJudge{g: g, model: model, client: openai.NewClient(opts...), toolsOff: g.opts.ToolsOff}
}

func (j *openAIJudge) Name() string { return OpenAI + ":" + j.model }

func (j *openAIJudge) Judge(ctx context.Context, req router.JudgeRequest) (router.JudgeResponse, error) {
	tools := buildTools(req.Candidates)
	params := openai.ChatCompletionNewParams{
		Model:       shared.ChatModel(j.model),
		Messages:    j.messages(req),
		Temperature: openai.Float(0),
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
	return j.g.judgeOnce(ctx, j.Name(), j.model, req, func(ctx context.Context) (string, int, int, error) {
		resp, err := j.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return "", 0, 0, err
		}
		in, out := int(resp.Usage.PromptTokens), int(resp.Usage.CompletionTokens)
		if len(resp.Choices) == 0 {
			return "", in, out, errors.New("the response has no choices")
		}
		return openAIAnswer(tools, resp.Choices[0].Message, j.toolsOff), in, out, nil
	})
}

func (j *openAIJudge) messages(req router.JudgeRequest) []openai.ChatCompletionMessageParamUnion {
	var msgs []openai.ChatCompletionMessageParamUnion
	if req.SystemPrompt != "" {
		msgs = append(msgs, openai.SystemMessage(req.SystemPrompt))
	}
	msgs = append(msgs, openai.UserMessage(userTurn(req, j.toolsOff)))
	if req.Repair != nil {
		msgs = append(msgs,
			openai.AssistantMessage(previousAnswer(req.Repair)),
			openai.UserMessage(repairTurn(req.Repair, j.toolsOff)))
	}
	return msgs
}

// openAIAnswer takes the first function call; a model (or server) that
// ignored tool_choice and wrote text has its text passed on as it is.
func openAIAnswer(tools toolSet, msg openai.ChatCompletionMessage, toolsOff bool) string {
	if !toolsOff {
		for _, tc := range msg.ToolCalls {
			if tc.Function.Name != "" {
				return tools.answer(tc.Function.Name, []byte(tc.Function.Arguments))
			}
		}
	}
	if msg.Content == "" && msg.Refusal != "" {
		return msg.Refusal
	}
	return msg.Content
}
