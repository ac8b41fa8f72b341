package mcpclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// Visibility values of _meta.ui.visibility.
const (
	VisibleToModel = "model"
	VisibleToApp   = "app"
)

// flatResourceURIKey is the deprecated flat _meta key for a tool's view, still accepted.
const flatResourceURIKey = "ui/resourceUri"

// Tool is one tool of a server as Voicebox sees it. It is immutable once made.
type Tool struct {
	Server      string          `json:"server"`
	Name        string          `json:"name"` // the server's own name for it
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Visibility is _meta.ui.visibility: who may call it ("model", "app"); both when the server says nothing.
	Visibility []string `json:"visibility"`
	// ResourceURI is its view (_meta.ui.resourceUri, or the deprecated _meta["ui/resourceUri"]); "" for none.
	ResourceURI string `json:"resourceUri,omitempty"`
	// ReadOnly is the server's readOnlyHint.
	ReadOnly bool `json:"readOnly,omitempty"`
	// Problem says why the tool cannot be called ("" when it can): its input schema does not compile here.
	Problem string `json:"problem,omitempty"`
	// Unchecked lists what of its schema is not checked here (a pattern Go's regexp cannot compile); the
	// server still checks it.
	Unchecked []string `json:"unchecked,omitempty"`

	schema *jsonschema.Schema
}

// VisibleTo reports whether the visibility includes who ("model" or "app").
func (t *Tool) VisibleTo(who string) bool { return slices.Contains(t.Visibility, who) }

// Callable reports whether the tool can be called (its schema compiled).
func (t *Tool) Callable() bool { return t.schema != nil }

// NewTool reads one tool of server's tools/list answer: its visibility and view from _meta, its input
// schema compiled once (never per call). A schema that does not compile makes a tool with a Problem, not
// an error: the server's other tools stay usable.
func NewTool(server string, in *mcp.Tool) *Tool {
	t := &Tool{Server: server, Name: in.Name, Title: in.Title, Description: in.Description,
		Visibility: []string{VisibleToModel, VisibleToApp}}
	if t.Title == "" && in.Annotations != nil {
		t.Title = in.Annotations.Title
	}
	if in.Annotations != nil {
		t.ReadOnly = in.Annotations.ReadOnlyHint
	}
	if ui, ok := in.Meta["ui"].(map[string]any); ok {
		if u, ok := ui["resourceUri"].(string); ok {
			t.ResourceURI = u
		}
		if v, ok := ui["visibility"].([]any); ok {
			t.Visibility = []string{}
			for _, w := range v {
				if s, ok := w.(string); ok && (s == VisibleToModel || s == VisibleToApp) && !slices.Contains(t.Visibility, s) {
					t.Visibility = append(t.Visibility, s)
				}
			}
		}
	}
	if t.ResourceURI == "" {
		if u, ok := in.Meta[flatResourceURIKey].(string); ok {
			t.ResourceURI = u
		}
	}
	if !strings.HasPrefix(t.ResourceURI, "ui://") {
		t.ResourceURI = "" // the spec's views are ui:// only
	}
	raw, err := json.Marshal(in.InputSchema)
	switch {
	case err != nil:
		t.Problem = fmt.Sprintf("its input schema is not JSON: %v", err)
	case in.InputSchema == nil:
		raw = json.RawMessage(`{"type":"object"}`)
	}
	t.InputSchema = raw
	if t.Problem == "" {
		t.schema, t.Unchecked, err = compileSchema(raw)
		if err != nil {
			t.Problem = display.Text(err.Error(), 512)
		}
	}
	if t.Name == "" || len(t.Name) > 128 || !utf8.ValidString(t.Name) || display.Clean(t.Name) != t.Name {
		// a name is shown as it is and called as it is: one that reads otherwise than it is cannot be
		t.Problem, t.schema = "its name is empty, over 128 bytes, or has control or bidirectional characters", nil
	}
	return t
}

// knownDraft reports a $schema that jsonschema/v5 knows; any other is dropped before compiling (the
// schema is read as 2020-12, what MCP says a schema without $schema is), so no URL is ever fetched.
func knownDraft(s string) bool {
	s = strings.TrimSuffix(strings.TrimSuffix(strings.Replace(s, "http://", "https://", 1), "#"), "#/")
	switch s {
	case "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
		"https://json-schema.org/draft-07/schema", "https://json-schema.org/draft-06/schema",
		"https://json-schema.org/draft-04/schema":
		return true
	}
	return false
}

// compileSchema compiles one tool's input schema with jsonschema/v5: 2020-12 unless $schema names another
// draft it knows, no remote reference ever loaded (a $ref outside the schema makes it fail), format an
// annotation as 2020-12 says (the server checks it), and each pattern Go's RE2 cannot compile (ECMA-262
// lookarounds, back-references, as zod emits for email) left out and listed in unchecked.
func compileSchema(raw json.RawMessage) (s *jsonschema.Schema, unchecked []string, err error) {
	if len(raw) > MaxSchemaBytes {
		return nil, nil, fmt.Errorf("its input schema is %d bytes, over %d", len(raw), MaxSchemaBytes)
	}
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("its input schema is not JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, errors.New("its input schema is not a JSON object")
	}
	if d, ok := m["$schema"].(string); ok && !knownDraft(d) {
		delete(m, "$schema")
	}
	unchecked = dropForeignPatterns(m, "", nil)
	b, err := json.Marshal(m)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if p := recover(); p != nil { // jsonschema/v5 MustCompiles patternProperties' keys
			s, err = nil, fmt.Errorf("its input schema does not compile: %v", p)
		}
	}()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("no schema is fetched (%s)", u)
	}
	const url = "urn:voicebox:mcp-tool-input"
	if err := c.AddResource(url, bytes.NewReader(b)); err != nil {
		return nil, nil, fmt.Errorf("its input schema does not compile: %v", err)
	}
	s, err = c.Compile(url)
	if err != nil {
		return nil, nil, fmt.Errorf("its input schema does not compile: %v", err)
	}
	return s, unchecked, nil
}

// notSchemas are keywords whose values are data, not schemas: dropForeignPatterns leaves them alone.
var notSchemas = []string{"const", "enum", "default", "examples", "example"}

// dropForeignPatterns removes, in place, every "pattern" whose value Go's regexp cannot compile and
// returns where each was (JSON pointers into the schema).
func dropForeignPatterns(v any, at string, out []string) []string {
	switch x := v.(type) {
	case map[string]any:
		if p, ok := x["pattern"].(string); ok {
			if _, err := regexp.Compile(p); err != nil {
				delete(x, "pattern")
				out = append(out, at+"/pattern")
			}
		}
		for k, w := range x {
			if slices.Contains(notSchemas, k) {
				continue
			}
			out = dropForeignPatterns(w, at+"/"+pointerEscape(k), out)
		}
	case []any:
		for i, w := range x {
			out = dropForeignPatterns(w, fmt.Sprintf("%s/%d", at, i), out)
		}
	}
	slices.Sort(out)
	return out
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the value")
	}
	return v, nil
}

// ValidateArgs checks raw arguments against the tool's compiled schema and returns the bytes to send:
// the arguments as checked, encoded again, so that what the server reads is exactly what was checked
// (no duplicate key, invalid UTF-8 or lone surrogate read one way here and another there). The bounds are
// the tool contract's (toolcontract.MaxArgsBytes, MaxArgsDepth, MaxArgsNodes) and so are the codes:
// invalid-tool-arguments, invalid-argument-bounds, missing-argument, invalid-argument-type,
// invalid-argument-enum, invalid-argument-range, invalid-argument-length, invalid-argument. No
// arguments at all stand for {}.
func (t *Tool) ValidateArgs(raw []byte) (json.RawMessage, *toolcontract.Refusal) {
	if t.schema == nil {
		return nil, refusal(CodeToolUnusable, "", "%s cannot be called: %s", t.Name, t.Problem)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte(`{}`)
	}
	v, r := decodeArgs(raw)
	if r != nil {
		return nil, r
	}
	if err := t.schema.Validate(v); err != nil {
		return nil, schemaRefusal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, refusal(toolcontract.CodeInvalidToolArguments, "", "%v", err)
	}
	return b, nil
}

// decodeArgs reads raw arguments token by token: a JSON object, valid UTF-8, no duplicate key, no lone
// surrogate escape, within the depth and node bounds.
func decodeArgs(raw []byte) (any, *toolcontract.Refusal) {
	if len(raw) > toolcontract.MaxArgsBytes {
		return nil, refusal(toolcontract.CodeInvalidToolArguments, "", "arguments are %d bytes, max %d", len(raw), toolcontract.MaxArgsBytes)
	}
	if !utf8.Valid(raw) {
		return nil, refusal(toolcontract.CodeInvalidToolArguments, "", "arguments are not valid UTF-8")
	}
	if bytes.Contains(raw, []byte(`\u`)) && loneSurrogate(raw) {
		return nil, refusal(toolcontract.CodeInvalidToolArguments, "", "arguments hold a lone surrogate escape")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	nodes := 0
	var value func(depth int) (any, *toolcontract.Refusal)
	value = func(depth int) (any, *toolcontract.Refusal) {
		tok, err := dec.Token()
		if err != nil {
			return nil, refusal(toolcontract.CodeInvalidToolArguments, "", "invalid JSON: %v", err)
		}
		if nodes++; nodes > toolcontract.MaxArgsNodes {
			return nil, refusal(toolcontract.CodeInvalidArgumentBounds, "", "arguments have more than %d nodes", toolcontract.MaxArgsNodes)
		}
		switch d := tok.(type) {
		case json.Delim:
			if depth+1 > toolcontract.MaxArgsDepth {
				return nil, refusal(toolcontract.CodeInvalidArgumentBounds, "", "arguments are nested deeper than %d levels", toolcontract.MaxArgsDepth)
			}
			if d == '[' {
				arr := []any{}
				for dec.More() {
					el, r := value(depth + 1)
					if r != nil {
						return nil, r
					}
					arr = append(arr, el)
				}
				_, _ = dec.Token()
				return arr, nil
			}
			obj := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, refusal(toolcontract.CodeInvalidToolArguments, "", "invalid JSON: %v", err)
				}
				k := kt.(string)
				if _, dup := obj[k]; dup {
					return nil, refusal(toolcontract.CodeInvalidToolArguments, "", "duplicate key %q", k)
				}
				el, r := value(depth + 1)
				if r != nil {
					return nil, r
				}
				obj[k] = el
			}
			_, _ = dec.Token()
			return obj, nil
		default:
			return d, nil
		}
	}
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, refusal(toolcontract.CodeInvalidToolArguments, "", "arguments must be a JSON object")
	}
	v, r := value(0)
	if r != nil {
		return nil, r
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, refusal(toolcontract.CodeInvalidToolArguments, "", "invalid JSON: data after the arguments object")
	}
	return v, nil
}

// loneSurrogate reports a \uD800–\uDFFF escape in a string of raw that is not half of a pair.
func loneSurrogate(raw []byte) bool {
	hex4 := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			switch {
			case c >= '0' && c <= '9':
				n = n*16 + int(c-'0')
			case c >= 'a' && c <= 'f':
				n = n*16 + int(c-'a'+10)
			case c >= 'A' && c <= 'F':
				n = n*16 + int(c-'A'+10)
			default:
				return 0, false
			}
		}
		return n, true
	}
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !in {
			in = c == '"'
			continue
		}
		switch c {
		case '"':
			in = false
		case '\\':
			if i+1 < len(raw) && raw[i+1] == 'u' && i+6 <= len(raw) {
				n, ok := hex4(raw[i+2 : i+6])
				switch {
				case !ok:
				case n >= 0xD800 && n <= 0xDBFF:
					if i+12 > len(raw) || raw[i+6] != '\\' || raw[i+7] != 'u' {
						return true
					}
					m, ok := hex4(raw[i+8 : i+12])
					if !ok || m < 0xDC00 || m > 0xDFFF {
						return true
					}
					i += 11
					continue
				case n >= 0xDC00 && n <= 0xDFFF:
					return true
				}
				i += 5
				continue
			}
			i++
		}
	}
	return false
}

// schemaRefusal turns jsonschema/v5's verdict into the tool contract's codes, by the keyword of its first
// leaf: required → missing-argument; type → invalid-argument-type; enum, const → invalid-argument-enum;
// bounds of numbers → invalid-argument-range; of lengths and counts → invalid-argument-length; any other
// (additionalProperties, pattern, anyOf, …) → invalid-argument. The path is the instance location.
func schemaRefusal(err error) *toolcontract.Refusal {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return refusal(toolcontract.CodeInvalidArgument, "", "%v", err)
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	kw := leaf.KeywordLocation[strings.LastIndexByte(leaf.KeywordLocation, '/')+1:]
	code := toolcontract.CodeInvalidArgument
	path := leaf.InstanceLocation
	switch kw {
	case "required":
		code = toolcontract.CodeMissingArgument
		if _, rest, ok := strings.Cut(leaf.Message, "'"); ok {
			if name, _, ok := strings.Cut(rest, "'"); ok {
				path += "/" + pointerEscape(name)
			}
		}
	case "type":
		code = toolcontract.CodeInvalidArgumentType
	case "enum", "const":
		code = toolcontract.CodeInvalidArgumentEnum
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		code = toolcontract.CodeInvalidArgumentRange
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		code = toolcontract.CodeInvalidArgumentLength
	}
	return refusal(code, path, "%s", display.Text(leaf.Message, 512))
}

func refusal(code, path, format string, a ...any) *toolcontract.Refusal {
	return &toolcontract.Refusal{Refused: code, Path: path, Message: fmt.Sprintf(format, a...)}
}
