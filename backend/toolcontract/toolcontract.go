// Package toolcontract is the host-side authority for the Web MCP tool
// contract of sandboxed mini-apps (docs/sandbox.md, Bounds): what a mini-app may
// declare with window.webMcp.registerTool(…) (validateWebMcpTool) and which
// arguments may reach it (validateMiniAppToolArgs).
//
// The same rules are repeated in JavaScript by toolcontract.js (exported here
// as BridgeJS) so the outer sandbox bridge is a second wall. Both are driven by
// one file of test vectors, testdata/vectors.json.
//
// # Declarations
//
// A declaration is a JSON object. Keys other than name, description,
// parameters, inputSchema and annotations (for example execute in JavaScript)
// are ignored and do not appear in the normalized declaration; annotations
// keep only their known hints (see Annotations) and are never refused.
// Checks run in this order and the first failure is the verdict:
//
//  1. not a JSON object (or not valid JSON)   → invalid-tool-name, path ""
//  2. name: a string matching ^[a-zA-Z0-9_-]{1,64}$ → invalid-tool-name, "/name"
//  3. description: a string of at most 1,024 Unicode code points (required;
//     "" is allowed) → invalid-tool-description, "/description"
//  4. parameters (or its WebMCP alias inputSchema): required. When both are
//     present they must be deep-equal JSON values (numbers compared by value,
//     key order ignored), else invalid-tool-parameters, path "".
//  5. the schema's JSON depth and node count (same definitions as for
//     arguments, see ValidateArgs) at most MaxSchemaDepth and
//     MaxSchemaNodes, else invalid-tool-parameters, path "".
//  6. the enforceable subset (see checkSchema), else invalid-tool-parameters
//     with a JSON pointer into the parameters schema, e.g.
//     /properties/team/pattern.
//
// Paths of invalid-tool-parameters are pointers into the parameters schema;
// invalid-tool-name and invalid-tool-description point into the declaration.
// Within a schema object, keys are visited in Unicode code point order so
// that Go and JavaScript report the same first failure.
//
// The enforceable subset: property types string, number, integer,
// boolean, array, object; type must be a single string. Per type only:
//
//	string:  minLength, maxLength, enum
//	number:  minimum, maximum, enum
//	integer: minimum, maximum, enum
//	boolean: (nothing)
//	array:   items (required), whose schema has a primitive type and may
//	         carry enum (not for boolean), description, title — nothing else
//	object:  properties, required, additionalProperties (boolean only)
//
// plus the annotations description and title (strings) everywhere. The root
// must be {"type":"object"}. Decisions beyond the subset itself:
// minLength/maxLength must be non-negative integers (2.0 counts as 2);
// minimum/maximum must be finite numbers; minLength > maxLength and minimum >
// maximum are refused as unsatisfiable (for integer also when no integer lies
// between them); enum must be a non-empty array whose members all match the
// type (duplicates are tolerated) and at least one member must satisfy the
// declared bounds; required must be an array of unique strings each naming a
// declared property ("__proto__" is refused in properties and required);
// nested objects are allowed as properties within the depth and node bounds.
//
// # Numbers
//
// Schema numbers are normalized to IEEE-754 doubles (what JavaScript sees) and
// re-emitted in their shortest round-trip form. Argument numbers are compared
// with those bounds and enum members exactly, on their decimal text, like JSON
// Schema does; an argument number that does not fit a finite double (for
// example 1e400) is refused invalid-argument-range.
package toolcontract

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// Limits (docs/sandbox.md, Bounds).
const (
	MaxTools        = 16
	MaxArgsBytes    = 65536
	MaxArgsDepth    = 32
	MaxArgsNodes    = 2048
	MaxSchemaDepth  = 16
	MaxSchemaNodes  = 512
	MaxOutputBytes  = 65536
	CallTimeout     = 5 * time.Second
	MaxNameLength   = 64
	MaxDescription  = 1024 // Unicode code points
	MaxRegisterBody = 65536
)

// Refusal codes.
const (
	CodeInvalidToolName        = "invalid-tool-name"
	CodeInvalidToolDescription = "invalid-tool-description"
	CodeInvalidToolParameters  = "invalid-tool-parameters"
	CodeTooManyTools           = "too-many-tools"
	CodeDuplicateTool          = "duplicate-tool"

	CodeInvalidToolArguments  = "invalid-tool-arguments"
	CodeInvalidArgumentBounds = "invalid-argument-bounds"
	CodeMissingArgument       = "missing-argument"
	CodeInvalidArgument       = "invalid-argument"
	CodeInvalidArgumentType   = "invalid-argument-type"
	CodeInvalidArgumentEnum   = "invalid-argument-enum"
	CodeInvalidArgumentRange  = "invalid-argument-range"
	CodeInvalidArgumentLength = "invalid-argument-length"

	CodeUnknownTool      = "unknown-tool"
	CodeToolTimeout      = "tool-timeout"
	CodeOutputOverBudget = "output-over-budget"
	CodeToolError        = "tool-error"
	CodeCancelled        = "cancelled" // the caller gave up on the call (the Tool Console's Cancel, a model's cancelled turn)

	// What the bridge answers a page's download or copy it will not hand the room (docs/webmcp.md).
	CodeDownloadRefused  = "download-refused"   // not bytes
	CodeDownloadTooLarge = "download-too-large" // over sandbox.MaxDownloadBytes
	CodeCopyTooLarge     = "copy-too-large"     // over sandbox.MaxCopyChars
	CodeNeedsGesture     = "needs-gesture"      // no click or key press of the person in the app

	// What confine.js answers a child frame it will not show (docs/sandbox.md, "Child frames").
	CodeChildFrameTooLarge = "child-frame-too-large" // the document is over sandbox.MaxChildBytes
	CodeChildFrameRefused  = "child-frame-refused"   // not HTML, or a blob: URL this document did not make
)

// Refusal is a structured refusal: {"refused": code, "path": "/points",
// "message": "…"}. Path is a JSON pointer ("" is the whole document).
type Refusal struct {
	Refused string `json:"refused"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error implements error. Always return *Refusal (never a typed nil stored in
// an error interface); convert with r.Err() when an error is wanted.
func (r *Refusal) Error() string { return r.Refused + ": " + r.Message }

// Err returns r as an error, or a true nil interface when r is nil.
func (r *Refusal) Err() error {
	if r == nil {
		return nil
	}
	return r
}

func refuse(code, path, format string, a ...any) *Refusal {
	return &Refusal{Refused: code, Path: path, Message: fmt.Sprintf(format, a...)}
}

// Tool is a normalized, accepted declaration. Only ValidateTool and
// RegisterAll make usable Tools: a Tool built any other way (a literal, or
// json.Unmarshal of a stored one) has no enforced schema and every call to it
// fails closed with unknown-tool; re-validate stored declarations instead.
// A Tool is immutable and safe for concurrent use.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Annotations *Annotations    `json:"annotations,omitempty"`

	root    *snode // enforced schema, used by ValidateArgs
	maxArgs int    // the arguments' bound in bytes; 0: MaxArgsBytes (WithArgsBound)
}

// Verdict is the per-tool answer of RegisterAll (and RegistryService.Register).
type Verdict struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Refused string `json:"refused,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message,omitempty"`
}

// BridgeJS is toolcontract.js, the JavaScript twin for the sandbox bridge.
//
//go:embed toolcontract.js
var BridgeJS []byte

// ValidateTool validates one raw JSON declaration (validateWebMcpTool) and
// returns the normalized declaration {name, description, parameters}.
func ValidateTool(raw []byte) (*Tool, *Refusal) {
	doc, err := parseTree(raw)
	if err != nil {
		return nil, refuse(CodeInvalidToolName, "", "tool declaration is not valid JSON: %v", err)
	}
	if doc.k != jObj {
		return nil, refuse(CodeInvalidToolName, "", "tool declaration must be a JSON object")
	}
	if doc.dup != "" {
		switch doc.dup {
		case "description":
			return nil, refuse(CodeInvalidToolDescription, "/description", "duplicate key \"description\"")
		case "parameters", "inputSchema":
			return nil, refuse(CodeInvalidToolParameters, "", "duplicate key %q", doc.dup)
		}
		return nil, refuse(CodeInvalidToolName, "", "duplicate key %q in tool declaration", doc.dup)
	}
	name := doc.get("name")
	if name == nil || name.k != jStr || !validName(name.s) {
		return nil, refuse(CodeInvalidToolName, "/name", "name must be a string matching ^[a-zA-Z0-9_-]{1,64}$")
	}
	desc := doc.get("description")
	if desc == nil || desc.k != jStr {
		return nil, refuse(CodeInvalidToolDescription, "/description", "description must be a string")
	}
	if n := utf8.RuneCountInString(desc.s); n > MaxDescription {
		return nil, refuse(CodeInvalidToolDescription, "/description", "description is %d characters, max %d", n, MaxDescription)
	}
	params, inSchema := doc.get("parameters"), doc.get("inputSchema")
	if params == nil && inSchema == nil {
		return nil, refuse(CodeInvalidToolParameters, "", "parameters (or inputSchema) is required")
	}
	if params == nil {
		params = inSchema
	}
	for _, s := range []*jval{params, inSchema} {
		if s == nil {
			continue
		}
		if r := schemaBounds(s); r != nil {
			return nil, r
		}
	}
	if inSchema != nil && inSchema != params && !jsonEqual(params, inSchema) {
		return nil, refuse(CodeInvalidToolParameters, "", "parameters and inputSchema are both present and differ")
	}
	root, r := checkSchema(params, "", ctxRoot)
	if r != nil {
		return nil, r
	}
	norm := params.encode()
	if r := metaCheck(norm); r != nil {
		return nil, r
	}
	return &Tool{Name: name.s, Description: desc.s, Parameters: norm, Annotations: annotationsOf(doc.get("annotations")), root: root}, nil
}

func validName(s string) bool {
	if len(s) < 1 || len(s) > MaxNameLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// RegisterAll validates the declarations of one app in order and applies the
// per-app rules: a second tool with an already accepted name is refused
// duplicate-tool (path "/name"); once MaxTools tools are accepted every
// further valid declaration is refused too-many-tools (path ""). Invalid
// declarations get their own verdict and do not count. verdicts has one
// entry per input, in order; accepted holds the accepted tools in order.
func RegisterAll(raws []json.RawMessage) (accepted []*Tool, verdicts []Verdict) {
	seen := make(map[string]bool)
	verdicts = make([]Verdict, 0, len(raws))
	for _, raw := range raws {
		t, r := ValidateTool(raw)
		name := ""
		if t != nil {
			name = t.Name
		} else {
			name = peekName(raw)
		}
		switch {
		case r != nil:
		case seen[t.Name]:
			r = refuse(CodeDuplicateTool, "/name", "tool %q is already registered by this app", t.Name)
		case len(accepted) >= MaxTools:
			r = refuse(CodeTooManyTools, "", "an app may register at most %d tools", MaxTools)
		}
		if r != nil {
			verdicts = append(verdicts, Verdict{Name: name, Refused: r.Refused, Path: r.Path, Message: r.Message})
			continue
		}
		seen[t.Name] = true
		accepted = append(accepted, t)
		verdicts = append(verdicts, Verdict{Name: t.Name, OK: true})
	}
	return accepted, verdicts
}

// peekName returns the declared name of a refused declaration when it is a
// string, for the verdict (best effort; "" otherwise).
func peekName(raw []byte) string {
	var d struct {
		Name any `json:"name"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return ""
	}
	s, _ := d.Name.(string)
	return s
}

// Find returns the tool called name, or an unknown-tool refusal (fail closed).
func Find(tools []*Tool, name string) (*Tool, *Refusal) {
	for _, t := range tools {
		if t != nil && t.Name == name {
			return t, nil
		}
	}
	return nil, refuse(CodeUnknownTool, "", "unknown tool %q", name)
}

// ValidateCall looks name up in tools and validates raw against it.
func ValidateCall(tools []*Tool, name string, raw []byte) (*Tool, *Refusal) {
	t, r := Find(tools, name)
	if r != nil {
		return nil, r
	}
	if r := t.ValidateArgs(raw); r != nil {
		return nil, r
	}
	return t, nil
}

// CheckOutput enforces the 64 KiB tool output budget on a result's bytes.
func CheckOutput(out []byte) *Refusal {
	if len(out) > MaxOutputBytes {
		return refuse(CodeOutputOverBudget, "", "output over budget (max 64KB)")
	}
	return nil
}

// TimeoutRefusal is the refusal for a call that outlived CallTimeout.
func TimeoutRefusal() *Refusal {
	return refuse(CodeToolTimeout, "", "tool execution timed out after %dms", CallTimeout.Milliseconds())
}
