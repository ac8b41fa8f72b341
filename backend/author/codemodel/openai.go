package codemodel

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// openaiClient streams from the Responses API: POST {base}/responses with stream true.
type openaiClient struct {
	base
	svc responses.ResponseService
}

func newOpenAI(b base) *openaiClient {
	return &openaiClient{base: b, svc: responses.NewResponseService(
		option.WithBaseURL(b.baseURL),
		option.WithAPIKey(b.key),
		option.WithHTTPClient(b.httpc),
		option.WithMaxRetries(0), // run retries, and counts them
	)}
}

func (c *openaiClient) Provider() string { return ProviderOpenAI }

// reasoningModel matches the models that take reasoning.effort: gpt-5 and later (not the -chat ones,
// which do not reason) and the o-series.
var reasoningModel = regexp.MustCompile(`^(gpt-[5-9]|o[1-9])`)

func isReasoningModel(m string) bool {
	return reasoningModel.MatchString(m) && !strings.Contains(m, "-chat")
}

func (c *openaiClient) params(req Request) responses.ResponseNewParams {
	var input responses.ResponseInputParam
	for _, m := range req.Messages {
		role := responses.EasyInputMessageRoleUser
		if m.Role == RoleAssistant {
			role = responses.EasyInputMessageRoleAssistant
		}
		input = append(input, responses.ResponseInputItemParamOfMessage(m.Text, role))
	}
	p := responses.ResponseNewParams{
		Model:           shared.ResponsesModel(c.model),
		Input:           responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		MaxOutputTokens: param.NewOpt(int64(req.MaxOutputTokens)),
		Store:           param.NewOpt(false), // nothing of the person's is kept on the provider's side
	}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	if isReasoningModel(c.model) {
		// Reasoning tokens count against max_output_tokens: keep them few so the page fits.
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffortLow}
	}
	return p
}

func (c *openaiClient) Stream(ctx context.Context, req Request, onDelta func(string)) (Result, error) {
	return c.run(ctx, req, onDelta, c.try)
}

// try sends one request and reads its events until a final one.
func (c *openaiClient) try(ctx context.Context, req Request, deliver func(string)) attempt {
	stream := c.svc.NewStreaming(ctx, c.params(req))
	defer stream.Close()
	var text, refusal strings.Builder
	model := c.model
	events := 0
	for stream.Next() {
		events++
		ev := stream.Current()
		if ev.Response.Model != "" {
			model = ev.Response.Model
		}
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
			deliver(ev.Delta)
		case "response.refusal.delta":
			refusal.WriteString(ev.Delta)
		case "response.completed":
			usage := openaiUsage(ev.Response.Usage)
			if refusal.Len() > 0 {
				return c.blocked("the model refused: "+refusal.String(), usage)
			}
			if text.Len() == 0 {
				return c.empty(usage)
			}
			return attempt{result: Result{Text: text.String(), Usage: usage, Model: model}}
		case "response.incomplete":
			usage := openaiUsage(ev.Response.Usage)
			switch reason := ev.Response.IncompleteDetails.Reason; reason {
			case "max_output_tokens":
				return c.truncated(req.MaxOutputTokens, usage)
			case "content_filter":
				return c.blocked("content filter", usage)
			default:
				return c.failed("incomplete: "+orUnknown(reason), usage)
			}
		case "response.failed":
			e := ev.Response.Error
			return c.eventError(string(e.Code), e.Message, openaiUsage(ev.Response.Usage))
		case "error":
			return c.eventError(ev.Code, ev.Message, Usage{})
		}
	}
	err := stream.Err()
	var apiErr *responses.Error
	var streamErr *ssestream.StreamError
	switch {
	case err == nil:
		// The stream ended without response.completed, .incomplete or .failed.
		return c.unfinished(Usage{})
	case ctx.Err() != nil:
		return attempt{err: c.cancelled(0)}
	case errors.As(err, &apiErr):
		return c.httpFailure(apiErr.StatusCode, apiErr.Code == "invalid_api_key", apiErr.Message)
	case errors.As(err, &streamErr):
		// An event whose data has an "error" object (the SDK stops on it): the error event's other shape.
		var body struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Error   struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(streamErr.Event.Data, &body)
		if body.Error.Message != "" || body.Error.Code != "" {
			return c.eventError(body.Error.Code, body.Error.Message, Usage{})
		}
		return c.eventError(body.Code, body.Message, Usage{})
	case isTransport(err):
		if events == 0 {
			return c.networkFailure(err)
		}
		return c.brokeMidway(Usage{})
	default:
		return c.failed("the stream could not be read", Usage{})
	}
}

// eventError handles response.failed and the error event.
func (c *openaiClient) eventError(code, message string, usage Usage) attempt {
	if code == "invalid_api_key" {
		return attempt{err: &Error{Code: CodeKeyRefused, Status: http.StatusUnauthorized, Message: c.name + " refused the API key: check the key in Settings."}}
	}
	why := orUnknown(code)
	if message != "" {
		why += ": " + message
	}
	return c.failed(why, usage)
}

func openaiUsage(u responses.ResponseUsage) Usage {
	return Usage{InputTokens: int(u.InputTokens), OutputTokens: int(u.OutputTokens), ReasoningTokens: int(u.OutputTokensDetails.ReasoningTokens)}
}

func orUnknown(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}
