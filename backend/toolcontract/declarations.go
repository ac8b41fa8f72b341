package toolcontract

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Providers accepted by Declaration and FunctionDeclarations.
const (
	ProviderOpenAI = "openai" // OpenAI Realtime
	ProviderGemini = "gemini" // Gemini Live
)

// FunctionDeclarations converts the tools of all open apps into function
// declarations for a live voice session (toolsToFunctionDeclarations), each
// under the name names gives it (a Namer's Assign: the callers share one
// Namer, backend/exposed, so that a name stays with the app that got it), and
// returns the map from exposed name back to (app, tool). Declarations come
// out in input order; unknown providers are an error. A repeated (AppID,
// tool) pair is emitted once, a nil or unnamed tool skipped.
func FunctionDeclarations(provider string, apps []AppTools, names map[Exposed]string) ([]json.RawMessage, map[string]Exposed, error) {
	if err := checkProvider(provider); err != nil {
		return nil, nil, err
	}
	var out []json.RawMessage
	exposed := make(map[string]Exposed, len(names))
	for _, a := range apps {
		for _, t := range a.Tools {
			if t == nil {
				continue
			}
			key := Exposed{AppID: a.AppID, Tool: t.Name}
			name := names[key]
			if _, done := exposed[name]; done || name == "" {
				continue
			}
			d, err := Declaration(provider, name, t)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, d)
			exposed[name] = key
		}
	}
	return out, exposed, nil
}

func checkProvider(provider string) error {
	if provider != ProviderOpenAI && provider != ProviderGemini {
		return fmt.Errorf("toolcontract: unknown provider %q", provider)
	}
	return nil
}

// Declaration converts one accepted tool into provider's function
// declaration under name.
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
// A tool whose annotations say readOnlyHint gets "(Read-only: it changes
// nothing.)" after its description, since neither provider has a field for
// the hint (MCP clients get the annotations themselves).
//
// Nothing is lost in safety: every call is still validated by
// Tool.ValidateArgs against the original schema before dispatch.
func Declaration(provider, name string, t *Tool) (json.RawMessage, error) {
	if err := checkProvider(provider); err != nil {
		return nil, err
	}
	desc := t.Description
	if t.Annotations.ReadOnly() {
		desc = strings.TrimSpace(desc + " " + readOnlyNote)
	}
	if provider == ProviderOpenAI {
		return json.Marshal(struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}{"function", name, desc, t.Parameters})
	}
	d := struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	}{Name: name, Description: desc}
	if p, err := parseTree(t.Parameters); err == nil {
		if g := geminiSchema(p); g != nil {
			d.Parameters = g.encode()
		}
	}
	return json.Marshal(d)
}

// readOnlyNote tells a voice model what readOnlyHint says (its declarations have no field for it).
const readOnlyNote = "(Read-only: it changes nothing.)"

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
