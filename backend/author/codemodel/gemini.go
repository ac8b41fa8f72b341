package codemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// gemini streams from generateContent: POST {base}/models/{model}:streamGenerateContent?alt=sse, each
// server-sent event's data one GenerateContentResponse (google/ai/generativelanguage/v1beta's
// generative_service.proto, in its JSON names).
type gemini struct {
	base
}

func (c *gemini) Provider() string { return ProviderGemini }

// Request shapes (GenerateContentRequest).
type geminiPart struct {
	Text    string `json:"text,omitempty"`
	Thought bool   `json:"thought,omitempty"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiRequest struct {
	SystemInstruction *geminiContent  `json:"systemInstruction,omitempty"`
	Contents          []geminiContent `json:"contents"`
	GenerationConfig  struct {
		MaxOutputTokens int `json:"maxOutputTokens"`
		ThinkingConfig  struct {
			ThinkingBudget int `json:"thinkingBudget"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

// geminiChunk is the part of a GenerateContentResponse this package reads; error is the object the
// service sends, in the stream or as an HTTP error body, when it fails.
type geminiChunk struct {
	Candidates []struct {
		Content struct {
			Parts []geminiPart `json:"parts"`
		} `json:"content"`
		FinishReason  string `json:"finishReason"`
		FinishMessage string `json:"finishMessage"`
	} `json:"candidates"`
	PromptFeedback struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string       `json:"modelVersion"`
	Error        *geminiError `json:"error"`
}

type geminiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Reason string `json:"reason"`
	} `json:"details"`
}

// keyInvalid: Gemini answers a wrong key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
func (e *geminiError) keyInvalid() bool {
	for _, d := range e.Details {
		if d.Reason == "API_KEY_INVALID" {
			return true
		}
	}
	return strings.Contains(e.Message, "API key not valid")
}

// Finish reasons that are a block (FinishReason in generative_service.proto).
var geminiBlocks = map[string]bool{
	"SAFETY": true, "RECITATION": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true, "SPII": true,
	"IMAGE_SAFETY": true, "IMAGE_PROHIBITED_CONTENT": true, "IMAGE_RECITATION": true, "MODEL_ARMOR": true,
}

// maxSSELine bounds one line of the stream; a chunk is a few KiB.
const maxSSELine = 8 << 20

func (c *gemini) Stream(ctx context.Context, req Request, onDelta func(string)) (Result, error) {
	return c.run(ctx, req, onDelta, c.try)
}

func (c *gemini) body(req Request) ([]byte, error) {
	var g geminiRequest
	if req.System != "" {
		g.SystemInstruction = &geminiContent{Parts: []geminiPart{{Text: req.System}}}
	}
	for _, m := range req.Messages {
		role := "user"
		if m.Role == RoleAssistant {
			role = "model"
		}
		g.Contents = append(g.Contents, geminiContent{Role: role, Parts: []geminiPart{{Text: m.Text}}})
	}
	g.GenerationConfig.MaxOutputTokens = req.MaxOutputTokens
	g.GenerationConfig.ThinkingConfig.ThinkingBudget = GeminiThinkingBudget
	return json.Marshal(g)
}

func (c *gemini) try(ctx context.Context, req Request, deliver func(string)) attempt {
	body, err := c.body(req)
	if err != nil {
		return c.failed("the request could not be encoded", Usage{})
	}
	endpoint := c.baseURL + "/models/" + url.PathEscape(strings.TrimPrefix(c.model, "models/")) + ":streamGenerateContent?alt=sse"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return attempt{err: &Error{Code: CodeNoCodeModel, Message: fmt.Sprintf("The Gemini address %q is not a URL: fix %s.", c.baseURL, EnvGeminiBase)}}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	hreq.Header.Set("x-goog-api-key", c.key) // a header, never the URL, so that errors that quote the URL do not carry it
	res, err := c.httpc.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return attempt{err: c.cancelled(0)}
		}
		return c.networkFailure(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error geminiError `json:"error"`
		}
		b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		_ = json.Unmarshal(b, &e)
		return c.httpFailure(res.StatusCode, e.Error.keyInvalid(), e.Error.Message)
	}

	var text strings.Builder
	var usage Usage
	model, finish, finishMessage := c.model, "", ""
	err = readSSE(res.Body, func(data []byte) error {
		var ch geminiChunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return errMalformed
		}
		if ch.Error != nil {
			return ch.Error
		}
		if ch.ModelVersion != "" {
			model = ch.ModelVersion
		}
		if u := ch.UsageMetadata; u != nil {
			usage = Usage{InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount, ReasoningTokens: u.ThoughtsTokenCount}
		}
		if r := ch.PromptFeedback.BlockReason; r != "" {
			finish = "prompt:" + r
			return errStop
		}
		if len(ch.Candidates) == 0 {
			return nil
		}
		cand := ch.Candidates[0]
		for _, p := range cand.Content.Parts {
			if p.Thought {
				continue // the model's thinking is not the answer
			}
			text.WriteString(p.Text)
			deliver(p.Text)
		}
		if cand.FinishReason != "" {
			finish, finishMessage = cand.FinishReason, cand.FinishMessage
		}
		return nil
	})
	var ge *geminiError
	switch {
	case ctx.Err() != nil:
		return attempt{err: c.cancelled(0)}
	case errors.As(err, &ge):
		if ge.keyInvalid() {
			return c.httpFailure(http.StatusBadRequest, true, "")
		}
		why := ge.Status
		if why == "" {
			why = fmt.Sprintf("error %d", ge.Code)
		}
		return c.failed(why+": "+ge.Message, usage)
	case errors.Is(err, errMalformed) || errors.Is(err, bufio.ErrTooLong):
		return c.failed("the stream was not valid", usage)
	case err != nil && !errors.Is(err, errStop):
		return c.brokeMidway(usage)
	}
	switch {
	case strings.HasPrefix(finish, "prompt:"):
		return c.blocked("blockReason "+strings.TrimPrefix(finish, "prompt:"), usage)
	case finish == "STOP":
		if text.Len() == 0 {
			return c.empty(usage)
		}
		return attempt{result: Result{Text: text.String(), Usage: usage, Model: model}}
	case finish == "MAX_TOKENS":
		return c.truncated(req.MaxOutputTokens, usage)
	case geminiBlocks[finish]:
		why := "finishReason " + finish
		if finishMessage != "" {
			why += ": " + finishMessage
		}
		return c.blocked(why, usage)
	case finish == "":
		return c.unfinished(usage)
	default:
		why := "finishReason " + finish
		if finishMessage != "" {
			why += ": " + finishMessage
		}
		return c.failed(why, usage)
	}
}

func (e *geminiError) Error() string { return e.Status + ": " + e.Message }

var (
	errMalformed = errors.New("codemodel: malformed stream")
	errStop      = errors.New("codemodel: stop reading")
)

// readSSE calls onData with each event's data (its data: lines joined by newlines), in order, until the
// body ends or onData fails. Lines may end in \n or \r\n; comments and other fields are skipped.
func readSSE(r io.Reader, onData func([]byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxSSELine)
	var data []byte
	has := false
	for sc.Scan() {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if len(line) == 0 {
			if has {
				if err := onData(data); err != nil {
					return err
				}
			}
			data, has = data[:0], false
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if len(name) == 0 {
			continue // a comment
		}
		if string(name) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if has {
			data = append(data, '\n')
		}
		data, has = append(data, value...), true
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if has {
		// The last event lacked its blank line: the stream was cut, but its data is whole or not JSON.
		return onData(data)
	}
	return nil
}
