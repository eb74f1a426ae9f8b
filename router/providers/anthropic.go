package providers

import (
	"context"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/routebench/routebench/router"
)

// anthropicJudge asks the Anthropic messages API through the official SDK
// (github.com/anthropics/anthropic-sdk-go v1, the module in go.mod).
type anthropicJudge struct {
	g         *Gateway
	model     string
	client    anthropic.Client
	toolsOff  bool
	maxTokens int64
}

// NewAnthropicJudge returns the judge "anthropic:<model>". Base URL and key
// come from Options.BaseURL / ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (or
// Options.APIKeyEnv). The SDK's environment defaults are switched off so a
// run without a key (cassette replay) is not stopped by its credential
// check and no credential source other than the documented variables is
// ever consulted.
func (g *Gateway) NewAnthropicJudge(model string) router.Judge {
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(g.HTTPClient(Anthropic)),
		option.WithMaxRetries(0), // the gateway's transport owns the single retry
	}
	if base := g.baseURL(Anthropic); base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	if key := g.apiKey(Anthropic); key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &anthropicJudge{g: g, model: model, client: anthropic.NewClient(opts...),
		toolsOff: g.opts.ToolsOff, maxTokens: int64(g.opts.MaxTokens)}
}

func (j *anthropicJudge) Name() string { return Anthropic + ":" + j.model }

func (j *anthropicJudge) Judge(ctx context.Context, req router.JudgeRequest) (router.JudgeResponse, error) {
	tools := buildTools(req.Candidates)
	params := anthropic.MessageNewParams{
		Model:       anthropic.Model(j.model),
		MaxTokens:   j.maxTokens,
		Temperature: anthropic.Float(0),
	}
	for _, t := range req.Turns {
		params.Messages = append(params.Messages,
			anthropic.NewUserMessage(anthropic.NewTextBlock(earlierText(t))),
			anthropic.NewAssistantMessage(anthropic.NewTextBlock(t.Decision.Summary())))
	}
	params.Messages = append(params.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(userTurn(req, j.toolsOff))))
	if req.SystemPrompt != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.SystemPrompt}}
	}
	if req.Repair != nil {
		params.Messages = append(params.Messages,
			anthropic.NewAssistantMessage(anthropic.NewTextBlock(previousAnswer(req.Repair))),
			anthropic.NewUserMessage(anthropic.NewTextBlock(repairTurn(req.Repair, j.toolsOff))))
	}
	if !j.toolsOff {
		for _, t := range tools.tools {
			params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: anthropicTool(t)})
		}
		params.ToolChoice = anthropic.ToolChoiceUnionParam{OfAny: &anthropic.ToolChoiceAnyParam{
			DisableParallelToolUse: anthropic.Bool(true),
		}}
	}
	return j.g.judgeOnce(ctx, j.Name(), j.model, req, func(ctx context.Context) (answer, error) {
		msg, err := j.client.Messages.New(ctx, params)
		if err != nil {
			return answer{}, err
		}
		return anthropicResult(msg, tools, j.toolsOff)
	})
}

// anthropicTool splits a tool's schema into the SDK's fields: properties
// and required are typed, every other keyword travels as an extra field.
func anthropicTool(t tool) *anthropic.ToolParam {
	schema := anthropic.ToolInputSchemaParam{Properties: t.Schema["properties"]}
	if req, ok := t.Schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				schema.Required = append(schema.Required, s)
			}
		}
	}
	for k, v := range t.Schema {
		if k == "type" || k == "properties" || k == "required" {
			continue
		}
		if schema.ExtraFields == nil {
			schema.ExtraFields = map[string]any{}
		}
		schema.ExtraFields[k] = v
	}
	return &anthropic.ToolParam{Name: t.Name, Description: anthropic.String(t.Description), InputSchema: schema}
}
