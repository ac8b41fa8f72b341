package mcpclient

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/registry"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Answer is a server tool's result as the voice model and the Tool Console read it: the text of its content,
// and its structured content when the server gave one. Content that is not text (an image, a resource) is
// named, not carried: a view shows it.
type Answer struct {
	Text       string `json:"text"`
	Structured any    `json:"structuredContent,omitempty"`
}

// Outcome is a call's end as Voicebox's callers read it (registry.Outcome): the Answer; a result the server
// marked isError is a tool-error refusal with its text; a refusal stays one.
func Outcome(res *mcp.CallToolResult, r *toolcontract.Refusal) registry.Outcome {
	if r != nil {
		return registry.Outcome{Refused: r.Refused, Path: r.Path, Message: r.Message}
	}
	if res == nil {
		return registry.Outcome{Refused: toolcontract.CodeToolError, Message: "the server answered nothing"}
	}
	a := Answer{Text: contentText(res.Content), Structured: res.StructuredContent}
	if res.IsError {
		msg := a.Text
		if msg == "" {
			msg = "the server reported an error"
		}
		return registry.Outcome{Refused: toolcontract.CodeToolError, Message: msg}
	}
	b, err := json.Marshal(a)
	if err != nil {
		return registry.Outcome{Refused: toolcontract.CodeToolError, Message: err.Error()}
	}
	return registry.Outcome{OK: true, Result: b}
}

// contentText joins a result's text content; other kinds are named in brackets.
func contentText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		switch v := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, v.Text)
		case *mcp.ImageContent:
			parts = append(parts, "[an image]")
		case *mcp.AudioContent:
			parts = append(parts, "[audio]")
		case *mcp.ResourceLink:
			parts = append(parts, "[a resource: "+v.URI+"]")
		case *mcp.EmbeddedResource:
			parts = append(parts, "[a resource]")
		}
	}
	return strings.Join(parts, "\n")
}

// LogPrefix marks a server in the activity log's app column: "mcp:<server>".
const LogPrefix = "mcp:"

// LogID is how the activity log names server's calls.
func LogID(server string) string {
	if server == "" {
		return ""
	}
	return LogPrefix + server
}
