package toolcontract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Providers accepted by FunctionDeclarations.
const (
	ProviderOpenAI = "openai" // OpenAI Realtime
	ProviderGemini = "gemini" // Gemini Live
)

// AppTools is one open mini-app and its accepted tools.
type AppTools struct {
	AppID string
	// Slug prefixes the exposed names; AppID is used when empty.
	Slug  string
	Tools []*Tool
}

// Exposed maps an exposed function name back to the app and tool it stands
// for.
type Exposed struct {
	AppID string `json:"appId"`
	Tool  string `json:"tool"`
}

// FunctionDeclarations converts the tools of all open apps into function
// declarations for the live voice session (toolsToFunctionDeclarations) and
// returns the map from exposed name back to (app, tool). Declarations come
// out in input order; unknown providers are an error.
//
// Names. Every tool is exposed as <slug>__<tool>, where slug is the app's
// Slug (or AppID) with every byte outside [a-zA-Z0-9_-] replaced by '_' and
// prefixed with "app_" unless it starts with a letter ("app" when empty).
// That is valid for both providers: OpenAI ^[a-zA-Z0-9_-]{1,64}$, Gemini
// (must start with a letter or underscore; a-z A-Z 0-9 _ . : -; at most 64).
// When the name is longer than 64 bytes, or is already taken by another
// (app, tool) — two app ids can share a slug — it becomes the first 55 bytes
// of <slug>__<tool>, '_', and the first 8 hex digits of
// SHA-256(AppID "\x00" tool) (more digits on the astronomically unlikely
// further clash). Assignment visits (AppID, tool) pairs in sorted order, so
// the same set of apps always yields the same names whatever their order. A
// repeated (AppID, tool) pair, or a nil tool, is emitted once / skipped.
//
// OpenAI Realtime entries are {"type":"function","name","description",
// "parameters"} with the normalized JSON Schema unchanged.
//
// Gemini Live entries are functionDeclarations items {"name","description",
// "parameters"} whose schema is translated to Gemini's OpenAPI 3.0 subset:
//   - type becomes upper case (OBJECT, STRING, NUMBER, INTEGER, BOOLEAN,
//     ARRAY);
//   - description is kept; title is dropped (used as the description when
//     there is none);
//   - string enums are kept, with format "enum"; number and integer enums
//     are dropped (Gemini enums are strings only) and listed in the
//     description ("Allowed values: 1, 2.");
//   - minimum and maximum are kept (documented double fields);
//     minLength/maxLength are dropped (int64 fields, whose JSON form varies)
//     and stated in the description ("Length: 1 to 20 characters.");
//   - additionalProperties is dropped (not in Gemini's schema);
//   - an object property without properties (Gemini refuses an OBJECT with
//     empty properties) is dropped, and removed from required;
//   - a tool whose root ends up with no properties is declared without
//     parameters (Gemini refuses an empty OBJECT there).
//
// Nothing is lost in safety: every call is still validated by
// Tool.ValidateArgs against the original schema before dispatch.
func FunctionDeclarations(provider string, apps []AppTools) ([]json.RawMessage, map[string]Exposed, error) {
	if provider != ProviderOpenAI && provider != ProviderGemini {
		return nil, nil, fmt.Errorf("toolcontract: unknown provider %q", provider)
	}
	type entry struct {
		app  string
		slug string
		tool *Tool
		name string
	}
	var entries []*entry
	have := map[Exposed]bool{}
	for _, a := range apps {
		slug := a.Slug
		if slug == "" {
			slug = a.AppID
		}
		for _, t := range a.Tools {
			if t == nil || have[Exposed{a.AppID, t.Name}] {
				continue
			}
			have[Exposed{a.AppID, t.Name}] = true
			entries = append(entries, &entry{app: a.AppID, slug: sanitizeSlug(slug), tool: t})
		}
	}
	order := append([]*entry(nil), entries...)
	sort.Slice(order, func(i, j int) bool {
		if order[i].app != order[j].app {
			return order[i].app < order[j].app
		}
		return order[i].tool.Name < order[j].tool.Name
	})
	names := map[string]Exposed{}
	for _, e := range order {
		base := e.slug + "__" + e.tool.Name
		name := base
		if _, taken := names[name]; taken || len(name) > MaxNameLength {
			sum := sha256.Sum256([]byte(e.app + "\x00" + e.tool.Name))
			h := hex.EncodeToString(sum[:])
			for n := 8; ; n += 4 {
				keep := MaxNameLength - 1 - n
				name = base
				if len(name) > keep {
					name = name[:keep]
				}
				name += "_" + h[:n]
				if _, taken := names[name]; !taken || n >= len(h)-4 {
					break
				}
			}
		}
		e.name = name
		names[name] = Exposed{AppID: e.app, Tool: e.tool.Name}
	}
	out := make([]json.RawMessage, 0, len(entries))
	for _, e := range entries {
		var decl any
		if provider == ProviderOpenAI {
			decl = struct {
				Type        string          `json:"type"`
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			}{"function", e.name, e.tool.Description, e.tool.Parameters}
		} else {
			d := struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters,omitempty"`
			}{Name: e.name, Description: e.tool.Description}
			if p, err := parseTree(e.tool.Parameters); err == nil {
				if g := geminiSchema(p); g != nil {
					d.Parameters = g.encode()
				}
			}
			decl = d
		}
		b, err := json.Marshal(decl)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, b)
	}
	return out, names, nil
}

func sanitizeSlug(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	out := string(b)
	if out == "" {
		return "app"
	}
	if c := out[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		out = "app_" + out
	}
	return out
}

func str(s string) *jval { return &jval{k: jStr, s: s} }

func (v *jval) set(key string, val *jval) {
	v.keys = append(v.keys, key)
	v.vals = append(v.vals, val)
}

// geminiSchema translates one normalized schema (see FunctionDeclarations);
// it returns nil for an object with no properties left.
func geminiSchema(s *jval) *jval {
	t := s.get("type")
	if t == nil || t.k != jStr {
		return nil
	}
	out := &jval{k: jObj}
	out.set("type", str(strings.ToUpper(t.s)))
	var notes []string
	desc := ""
	if d := s.get("description"); d != nil && d.k == jStr {
		desc = d.s
	} else if d := s.get("title"); d != nil && d.k == jStr {
		desc = d.s
	}
	switch t.s {
	case "string":
		if e := s.get("enum"); e != nil {
			out.set("format", str("enum"))
			out.set("enum", e)
		}
		lo, hi := s.get("minLength"), s.get("maxLength")
		switch {
		case lo != nil && hi != nil:
			notes = append(notes, fmt.Sprintf("Length: %s to %s characters.", lo.s, hi.s))
		case lo != nil:
			notes = append(notes, fmt.Sprintf("Length: at least %s characters.", lo.s))
		case hi != nil:
			notes = append(notes, fmt.Sprintf("Length: at most %s characters.", hi.s))
		}
	case "number", "integer":
		for _, k := range []string{"minimum", "maximum"} {
			if x := s.get(k); x != nil {
				out.set(k, x)
			}
		}
		if e := s.get("enum"); e != nil {
			vals := make([]string, len(e.arr))
			for i, m := range e.arr {
				vals[i] = string(m.encode())
			}
			notes = append(notes, "Allowed values: "+strings.Join(vals, ", ")+".")
		}
	case "array":
		if it := s.get("items"); it != nil {
			if g := geminiSchema(it); g != nil {
				out.set("items", g)
			}
		}
	case "object":
		props := &jval{k: jObj}
		if ps := s.get("properties"); ps != nil {
			for i, k := range ps.keys {
				if g := geminiSchema(ps.vals[i]); g != nil {
					props.set(k, g)
				}
			}
		}
		if len(props.keys) == 0 {
			return nil
		}
		out.set("properties", props)
		if rq := s.get("required"); rq != nil {
			req := &jval{k: jArr}
			for _, r := range rq.arr {
				if props.has(r.s) {
					req.arr = append(req.arr, r)
				}
			}
			if len(req.arr) > 0 {
				out.set("required", req)
			}
		}
	}
	if len(notes) > 0 {
		if desc != "" {
			desc += " "
		}
		desc += strings.Join(notes, " ")
	}
	if desc != "" {
		// keep type first, description second, like hand-written schemas
		out.keys = append([]string{"type", "description"}, out.keys[1:]...)
		out.vals = append([]*jval{out.vals[0], str(desc)}, out.vals[1:]...)
	}
	return out
}
