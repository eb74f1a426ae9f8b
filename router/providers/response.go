package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

// ErrBadResponse is wrapped by every error about a provider answer that
// arrived but cannot be a model's answer: a `null` or empty body, no
// choices or content blocks, a tool_use block without an input object,
// negative token counts, embeddings of mixed sizes. The router records
// these as provider_error: the server failed, not the model.
var ErrBadResponse = errors.New("malformed provider response")

// ErrProviderPanic is wrapped by the error a provider call returns when
// it panicked: the panic is a bug in routebench or an SDK, and it must
// cost one case (as a provider_error), not the whole run.
var ErrProviderPanic = errors.New("provider call panicked")

// answer is what one provider call yields: the raw output passed to the
// router and the token counts the provider reported. Decoded says a
// response object was decoded, so the counts are the provider's own (even
// when the answer itself is unusable) and the call is billed at them.
type answer struct {
	Raw     string
	In, Out int
	Decoded bool
}

func badResponse(format string, args ...any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), ErrBadResponse)
}

// tokenCounts checks reported usage: a negative count would lower the
// spend the budget has already counted.
func tokenCounts(in, out int64) (int, int, error) {
	if in < 0 || out < 0 {
		return 0, 0, badResponse("the response reports negative usage (%d input, %d output tokens)", in, out)
	}
	return int(in), int(out), nil
}

// openAIResult reads a chat completion as the SDK decoded it. The SDK
// decodes into a pointer, so a body of `null` arrives as nil.
func openAIResult(resp *openai.ChatCompletion, tools toolSet, toolsOff bool) (answer, error) {
	if resp == nil {
		return answer{}, badResponse("the response body is null, not a chat completion")
	}
	in, out, err := tokenCounts(resp.Usage.PromptTokens, resp.Usage.CompletionTokens)
	if err != nil {
		return answer{}, err
	}
	a := answer{In: in, Out: out, Decoded: true}
	if len(resp.Choices) == 0 {
		return a, badResponse("the response has no choices")
	}
	raw, ok := openAIAnswer(tools, resp.Choices[0].Message, toolsOff)
	if !ok {
		return a, badResponse("choice 0 holds no content, tool call or refusal")
	}
	a.Raw = raw
	return a, nil
}

// openAIAnswer takes the first function call; a model (or server) that
// ignored tool_choice and wrote text has its text passed on as it is.
// Function arguments are text the model wrote, so arguments that are not
// an object are the model's schema_error, kept verbatim. ok is false when
// the message holds nothing at all: there is no answer to score, and
// blaming the model for it would hide a server that dropped the message.
func openAIAnswer(tools toolSet, msg openai.ChatCompletionMessage, toolsOff bool) (raw string, ok bool) {
	if !toolsOff {
		for _, tc := range msg.ToolCalls {
			if tc.Function.Name == "" {
				continue
			}
			args := tc.Function.Arguments
			if strings.TrimSpace(args) == "" {
				// Some servers send "" for a call without arguments; the
				// router then names the missing confidence instead of
				// failing on an empty answer.
				args = "{}"
			}
			return tools.answer(tc.Function.Name, []byte(args)), true
		}
	}
	switch {
	case msg.Content != "":
		return msg.Content, true
	case msg.Refusal != "":
		return msg.Refusal, true
	}
	return "", false
}

// anthropicResult reads a Messages API answer as the SDK decoded it; a
// body of `null` arrives as nil.
func anthropicResult(msg *anthropic.Message, tools toolSet, toolsOff bool) (answer, error) {
	if msg == nil {
		return answer{}, badResponse("the response body is null, not a message")
	}
	u := msg.Usage
	in, out, err := tokenCounts(u.InputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens, u.OutputTokens)
	if err != nil {
		return answer{}, err
	}
	// Each count was checked by its sum; a negative cache count hidden by a
	// larger input count is still a broken response.
	if u.InputTokens < 0 || u.CacheCreationInputTokens < 0 || u.CacheReadInputTokens < 0 {
		return answer{}, badResponse("the response reports negative input usage")
	}
	a := answer{In: in, Out: out, Decoded: true}
	if len(msg.Content) == 0 {
		return a, badResponse("the message has no content blocks")
	}
	raw, err := anthropicAnswer(tools, msg.Content, toolsOff)
	if err != nil {
		return a, err
	}
	a.Raw = raw
	return a, nil
}

// anthropicAnswer takes the first tool_use block, else the text blocks.
// Unlike OpenAI's arguments string, a tool_use input is parsed by the
// server and documented as an object, so anything else (null, missing, an
// array) is a broken response rather than the model's output.
func anthropicAnswer(tools toolSet, blocks []anthropic.ContentBlockUnion, toolsOff bool) (string, error) {
	if !toolsOff {
		for i, b := range blocks {
			if b.Type != "tool_use" {
				continue
			}
			input := bytes.TrimSpace(b.Input)
			if len(input) == 0 || input[0] != '{' {
				return "", badResponse("content block %d (tool_use %q) has input %s, want a JSON object", i, b.Name, describeJSON(input))
			}
			return tools.answer(b.Name, input), nil
		}
	}
	var text strings.Builder
	for _, b := range blocks {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	if text.Len() == 0 {
		return "", badResponse("the message holds no tool_use block and no text")
	}
	return text.String(), nil
}

// describeJSON names a value's kind for an error message without quoting
// what may be a long or secret value.
func describeJSON(v []byte) string {
	if len(v) == 0 {
		return "missing"
	}
	switch v[0] {
	case 'n':
		return "null"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// decodeLikeSDK decodes a 200 body the way both SDKs do (one
// json.Decoder.Decode into a pointer to a pointer), so the fuzz targets
// see exactly what the judges see.
func decodeLikeSDK[T any](body []byte) (*T, error) {
	var v *T
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&v); err != nil {
		return nil, fmt.Errorf("error parsing response json: %w", err)
	}
	return v, nil
}
