package mcpclient

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// NamePrefix starts every name a server tool is exposed by, and a letter or digit follows it (see
// IsServerToolName). No host verb and no app tool is named so: an app tool's exposed name is its app's
// slug (store.SlugOf: a-z, 0-9 and '-', so never "mcp_x"; an app slugged "mcp" gives "mcp__…") or its id
// (app_…, page_…, doc_…, local_…), then "__" and the tool (docs/tools.md; docs/mcp-apps.md, "Names").
const NamePrefix = "mcp_"

// IsServerToolName reports whether name has the form of a server tool's exposed name: NamePrefix and
// then a letter or digit. A door can route a call by it before looking the name up.
func IsServerToolName(name string) bool {
	if len(name) <= len(NamePrefix) || name[:len(NamePrefix)] != NamePrefix {
		return false
	}
	c := name[len(NamePrefix)]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// serverPart is a server's name as it appears in its tools' names: nameBytes, and "s" in front when it
// would not start with a letter or digit, so that every name keeps IsServerToolName's form.
func serverPart(server string) string {
	p := nameBytes(server)
	if c := p[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		p = "s" + p
	}
	return p
}

// ToolRef names one tool of one server.
type ToolRef struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
}

// namer gives server tools their exposed names: mcp_<server>__<tool>, every byte of either outside
// [a-zA-Z0-9_-] replaced by '_' (and "s" before a server part that would start otherwise), through one toolcontract.Namer, so the rules of app tools hold: at most
// 64 bytes (a longer name, or one another tool holds, becomes its first 55 bytes, '_' and 8 hex digits of
// a hash of the server and tool), and a name stays with the (server, tool) that got it, while the server
// restarts and after, so a name a model learned never reaches another tool.
type namer struct{ n *toolcontract.Namer }

func newNamer() *namer { return &namer{n: toolcontract.NewNamer()} }

// assign names tools (the model-visible tools of the ready servers now) and returns the name of each.
func (n *namer) assign(tools []*Tool) map[ToolRef]string {
	in := make([]toolcontract.AppTools, 0, len(tools))
	keys := map[toolcontract.Exposed]ToolRef{}
	for _, t := range tools {
		// The Namer keys names by (AppID, tool): the server and the tool's own name make the AppID, so
		// two tools whose names map alike ("a.b", "a_b") are two keys and the second gets a suffix.
		k := toolcontract.Exposed{AppID: t.Server + "\x00" + t.Name, Tool: nameBytes(t.Name)}
		keys[k] = ToolRef{Server: t.Server, Tool: t.Name}
		in = append(in, toolcontract.AppTools{AppID: k.AppID, Slug: NamePrefix + serverPart(t.Server),
			Tools: []*toolcontract.Tool{{Name: k.Tool}}})
	}
	out := map[ToolRef]string{}
	for k, name := range n.n.Assign(in) {
		out[keys[k]] = name
	}
	return out
}

// nameBytes maps a tool's name to [a-zA-Z0-9_-] the way the Namer maps a slug.
func nameBytes(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "x"
	}
	return string(b)
}

// Declaration is tool t as provider's function declaration under name (toolcontract.ProviderOpenAI or
// ProviderGemini), the description cut to MaxDescriptionBytes.
//
// OpenAI Realtime gets the server's JSON Schema as it is, less $schema and $id at its root, with
// "type":"object" and "properties" at the root when the server left them out (Realtime's function
// parameters are an object schema).
//
// Gemini Live gets the schema translated to its OpenAPI 3.0 subset (see geminiSchema); what the subset
// cannot say is written into descriptions. Either way every call is checked against the server's own
// schema (Tool.ValidateArgs) before it leaves Voicebox.
func Declaration(provider, name string, t *Tool) (json.RawMessage, error) {
	params, err := openAIParameters(t.InputSchema)
	if err != nil {
		return nil, err
	}
	tc := &toolcontract.Tool{Name: name, Description: display.Cut(t.Description, MaxDescriptionBytes), Parameters: params}
	if t.ReadOnly {
		yes := true
		tc.Annotations = &toolcontract.Annotations{ReadOnlyHint: &yes}
	}
	// toolcontract writes the OpenAI entry and the read-only note, the same for app tools and these.
	openai, err := toolcontract.Declaration(toolcontract.ProviderOpenAI, name, tc)
	if err != nil || provider == toolcontract.ProviderOpenAI {
		return openai, err
	}
	if provider != toolcontract.ProviderGemini {
		return nil, fmt.Errorf("mcpclient: unknown provider %q", provider)
	}
	var withNote struct {
		Description string `json:"description"`
	}
	if err := json.Unmarshal(openai, &withNote); err != nil {
		return nil, err
	}
	d := struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters,omitempty"`
	}{Name: name, Description: withNote.Description}
	if root, err := decodeJSON(t.InputSchema); err == nil {
		g := &gemini{root: root}
		if p := g.schema(root, 0, nil); p != nil && p["type"] == "OBJECT" {
			d.Parameters = p
		}
	}
	return json.Marshal(d)
}

// openAIParameters is the schema for OpenAI: the server's, less $schema and $id at the root, with the
// root's type object and properties present.
func openAIParameters(raw json.RawMessage) (json.RawMessage, error) {
	v, err := decodeJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("mcpclient: input schema: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		m = map[string]any{}
	}
	delete(m, "$schema")
	delete(m, "$id")
	m["type"] = "object"
	if _, ok := m["properties"].(map[string]any); !ok {
		m["properties"] = map[string]any{}
	}
	return json.Marshal(m)
}

// Bounds of a Gemini declaration's schema: deeper or further nodes are left out (the server's schema
// still checks every call).
const (
	geminiMaxDepth = 10
	geminiMaxNodes = 400
)

// gemini translates one tool's JSON Schema (2020-12, or an older draft) into Gemini's Schema subset.
// Gemini refuses a whole setup for one field it does not take, so the translation keeps only fields its
// documentation lists and its Live API takes (type, description, nullable, enum of strings, format
// date-time or enum on strings, int32/int64 and float/double on numbers, minimum, maximum, items,
// properties, required, anyOf) and states the rest in the description:
//
//   - $ref to "#/…" (pydantic's $defs, zod's definitions) is inlined, once per path (a recursive schema
//     stops where it recurs); any other $ref leaves the property out;
//   - allOf is merged; anyOf/oneOf become anyOf, a {"type":"null"} member becomes nullable, and a single
//     member left stands alone; a type list ["string","null"] is the same;
//   - const becomes a one-value enum for strings; number enums, pattern, lengths, item counts, exclusive
//     bounds and other formats become notes ("Pattern: ^[a-z]+$.");
//   - an object without properties left, an array without items, a schema without a type it can tell,
//     and anything deeper than geminiMaxDepth or past geminiMaxNodes are left out (and dropped from
//     required).
type gemini struct {
	root  any
	nodes int
}

func (g *gemini) schema(v any, depth int, refs []string) map[string]any {
	s, ok := v.(map[string]any)
	if !ok || depth > geminiMaxDepth || g.nodes >= geminiMaxNodes {
		return nil
	}
	s, refs, ok = g.resolve(s, refs)
	if !ok {
		return nil
	}
	g.nodes++
	var notes []string
	desc := ""
	if d, ok := s["description"].(string); ok {
		desc = d
	} else if t, ok := s["title"].(string); ok {
		desc = t
	}
	nullable := false
	// alternatives: anyOf / oneOf / a list of types
	var alts []any
	for _, k := range []string{"anyOf", "oneOf"} {
		if a, ok := s[k].([]any); ok {
			for _, m := range a {
				if describesValue(m) {
					alts = append(alts, m)
				}
			}
		}
	}
	typ := ""
	switch t := s["type"].(type) {
	case string:
		typ = t
	case []any:
		for _, x := range t {
			if name, ok := x.(string); ok {
				if name == "null" {
					nullable = true
				} else {
					sub := map[string]any{}
					for k, w := range s {
						if k != "type" && k != "anyOf" && k != "oneOf" {
							sub[k] = w
						}
					}
					sub["type"] = name
					alts = append(alts, sub)
				}
			}
		}
	}
	if len(alts) > 0 {
		var out []any
		for _, a := range alts {
			if am, ok := a.(map[string]any); ok && am["type"] == "null" {
				nullable = true
				continue
			}
			merged := a
			if am, ok := a.(map[string]any); ok && typ != "" && am["type"] == nil {
				c := map[string]any{"type": typ}
				for k, w := range am {
					c[k] = w
				}
				merged = c
			}
			if g := g.schema(merged, depth+1, refs); g != nil {
				out = append(out, g)
			}
		}
		var res map[string]any
		switch len(out) {
		case 0:
			return nil
		case 1:
			res = out[0].(map[string]any)
		default:
			res = map[string]any{"anyOf": out}
		}
		if nullable {
			res["nullable"] = true
		}
		if desc != "" {
			if inner, ok := res["description"].(string); ok && inner != desc {
				desc = desc + " " + inner
			}
			res["description"] = display.Cut(desc, MaxDescriptionBytes)
		}
		return res
	}
	if typ == "" {
		typ = inferType(s)
	}
	out := map[string]any{}
	switch typ {
	case "string":
		out["type"] = "STRING"
		if vals, ok := stringEnum(s); ok {
			out["format"] = "enum"
			out["enum"] = vals
		} else if e, ok := s["enum"].([]any); ok {
			notes = append(notes, "Allowed values: "+listValues(e)+".")
		}
		if f, ok := s["format"].(string); ok && out["format"] == nil {
			if f == "date-time" {
				out["format"] = f
			} else {
				notes = append(notes, "Format: "+f+".")
			}
		}
		lengthNote(s, "minLength", "maxLength", "characters", &notes)
		if p, ok := s["pattern"].(string); ok {
			notes = append(notes, "Pattern: "+p+".")
		}
	case "number", "integer":
		out["type"] = strings.ToUpper(typ)
		for _, k := range []string{"minimum", "maximum"} {
			if x, ok := s[k].(json.Number); ok {
				out[k] = x
			}
		}
		for k, word := range map[string]string{"exclusiveMinimum": "More than", "exclusiveMaximum": "Less than"} {
			if x, ok := s[k].(json.Number); ok {
				notes = append(notes, word+" "+x.String()+".")
			}
		}
		if f, ok := s["format"].(string); ok {
			if typ == "integer" && (f == "int32" || f == "int64") || typ == "number" && (f == "float" || f == "double") {
				out["format"] = f
			}
		}
		if e, ok := s["enum"].([]any); ok {
			notes = append(notes, "Allowed values: "+listValues(e)+".")
		} else if c, ok := s["const"]; ok {
			notes = append(notes, "Allowed values: "+listValues([]any{c})+".")
		}
	case "boolean":
		out["type"] = "BOOLEAN"
	case "array":
		items := s["items"]
		if list, ok := items.([]any); ok && len(list) > 0 { // draft-04 tuples
			items = list[0]
		}
		if items == nil {
			if list, ok := s["prefixItems"].([]any); ok && len(list) > 0 {
				items = list[0]
			}
		}
		it := g.schema(items, depth+1, refs)
		if it == nil {
			return nil // Gemini refuses an ARRAY without items
		}
		out["type"] = "ARRAY"
		out["items"] = it
		lengthNote(s, "minItems", "maxItems", "items", &notes)
	case "object":
		props := map[string]any{}
		if ps, ok := s["properties"].(map[string]any); ok {
			keys := make([]string, 0, len(ps))
			for k := range ps {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if p := g.schema(ps[k], depth+1, refs); p != nil {
					props[k] = p
				}
			}
		}
		if len(props) == 0 {
			return nil // Gemini refuses an OBJECT with empty properties
		}
		out["type"] = "OBJECT"
		out["properties"] = props
		if rq, ok := s["required"].([]any); ok {
			var req []any
			for _, r := range rq {
				if name, ok := r.(string); ok && props[name] != nil {
					req = append(req, name)
				}
			}
			if len(req) > 0 {
				out["required"] = req
			}
		}
	default:
		return nil
	}
	if nullable {
		out["nullable"] = true
	}
	if len(notes) > 0 {
		if desc != "" {
			desc += " "
		}
		desc += strings.Join(notes, " ")
	}
	if desc != "" {
		out["description"] = display.Cut(desc, MaxDescriptionBytes)
	}
	return out
}

// resolve inlines a local $ref (a chain of them, bounded) and merges allOf, returning the schema to
// translate and the references followed on this path; ok is false for a reference it cannot follow
// (remote, missing, or one already followed on this path: a recursive schema stops where it recurs).
func (g *gemini) resolve(s map[string]any, refs []string) (map[string]any, []string, bool) {
	for i := 0; ; i++ {
		ref, _ := s["$ref"].(string)
		if ref == "" {
			return withAllOf(s), refs, true
		}
		if i >= 16 || slices.Contains(refs, ref) {
			return nil, refs, false
		}
		target, ok := pointer(g.root, ref)
		if !ok {
			return nil, refs, false
		}
		refs = append(slices.Clip(refs), ref)
		merged := map[string]any{}
		for k, w := range target {
			merged[k] = w
		}
		for k, w := range s { // the referring schema's own words (its description) win
			if k != "$ref" {
				merged[k] = w
			}
		}
		s = merged
	}
}

// withAllOf merges allOf members (their properties, required and other words) into s.
func withAllOf(s map[string]any) map[string]any {
	all, ok := s["allOf"].([]any)
	if !ok {
		return s
	}
	out := map[string]any{}
	props := map[string]any{}
	var req []any
	for _, m := range append([]any{s}, all...) {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		for k, w := range mm {
			switch k {
			case "allOf":
			case "properties":
				if ps, ok := w.(map[string]any); ok {
					for pk, pv := range ps {
						props[pk] = pv
					}
				}
			case "required":
				if rs, ok := w.([]any); ok {
					req = append(req, rs...)
				}
			default:
				if _, set := out[k]; !set {
					out[k] = w
				}
			}
		}
	}
	if len(props) > 0 {
		out["properties"] = props
	}
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}

// pointer follows a local reference "#/a/b" in root.
func pointer(root any, ref string) (map[string]any, bool) {
	if !strings.HasPrefix(ref, "#") {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(strings.TrimPrefix(ref[1:], "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	m, ok := cur.(map[string]any)
	return m, ok
}

// describesValue reports an anyOf/oneOf member that says what a value is, not only what it must hold
// (a member like {"required":["a"]} adds a constraint to its parent's object and is left to the check).
func describesValue(m any) bool {
	mm, ok := m.(map[string]any)
	if !ok {
		return false
	}
	for _, k := range []string{"type", "$ref", "properties", "items", "enum", "const", "anyOf", "oneOf", "allOf"} {
		if _, ok := mm[k]; ok {
			return true
		}
	}
	return false
}

// inferType tells a schema's type from its other words when it has no "type".
func inferType(s map[string]any) string {
	switch {
	case s["properties"] != nil:
		return "object"
	case s["items"] != nil || s["prefixItems"] != nil:
		return "array"
	}
	vals, ok := s["enum"].([]any)
	if c, has := s["const"]; !ok && has {
		vals, ok = []any{c}, true
	}
	if !ok || len(vals) == 0 {
		return ""
	}
	kind := ""
	for _, v := range vals {
		k := ""
		switch x := v.(type) {
		case string:
			k = "string"
		case bool:
			k = "boolean"
		case json.Number:
			k = "number"
			if _, err := x.Int64(); err == nil && kind != "number" {
				k = "integer"
			}
		}
		switch {
		case k == "":
			return ""
		case kind == "" || kind == k:
			kind = k
		case kind == "integer" && k == "number" || kind == "number" && k == "integer":
			kind = "number"
		default:
			return ""
		}
	}
	return kind
}

// stringEnum is the schema's enum (or const) when every value is a string.
func stringEnum(s map[string]any) ([]any, bool) {
	vals, ok := s["enum"].([]any)
	if !ok {
		c, has := s["const"]
		if !has {
			return nil, false
		}
		vals = []any{c}
	}
	if len(vals) == 0 {
		return nil, false
	}
	for _, v := range vals {
		if _, ok := v.(string); !ok {
			return nil, false
		}
	}
	return vals, true
}

func listValues(vals []any) string {
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return strings.Join(out, ", ")
}

func lengthNote(s map[string]any, lo, hi, unit string, notes *[]string) {
	l, hasL := s[lo].(json.Number)
	h, hasH := s[hi].(json.Number)
	switch {
	case hasL && hasH:
		*notes = append(*notes, fmt.Sprintf("Length: %s to %s %s.", l, h, unit))
	case hasL:
		*notes = append(*notes, fmt.Sprintf("Length: at least %s %s.", l, unit))
	case hasH:
		*notes = append(*notes, fmt.Sprintf("Length: at most %s %s.", h, unit))
	}
}
