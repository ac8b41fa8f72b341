package toolcontract

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
)

// seg is one step of the current path: an array index, or an object key
// whose decoded bytes are b[s:e] (raw input) or arena[s:e] (when escaped).
type seg struct {
	idx   int32 // -1 for a key
	s, e  int32
	arena bool
}

// validator walks the raw bytes once, validating against the schema while it
// scans. Structural defects (invalid JSON, invalid Unicode, duplicate keys)
// stop the walk and win; schema verdicts are recorded in document order and
// the first one is returned.
type validator struct {
	b     []byte
	i     int
	hard  *Refusal
	soft  *Refusal
	plen  int
	path  [MaxArgsDepth + 1]seg
	keys  []seg
	arena []byte
}

// validators are pooled: the key stack and arena keep their capacity, so a
// call allocates nothing unless it refuses.
var validators = sync.Pool{New: func() any {
	return &validator{keys: make([]seg, 0, 32), arena: make([]byte, 0, 256)}
}}

// ValidateArgs validates raw JSON arguments against the tool's declared
// schema (validateMiniAppToolArgs). It returns nil when raw may be
// dispatched as is (the original bytes are the normalized arguments).
//
// Order: nil tool → unknown-tool; over MaxArgsBytes bytes →
// invalid-tool-arguments; prescan bounds → invalid-argument-bounds; then one
// pass where invalid JSON, a non-object document, invalid Unicode (invalid
// UTF-8 or an unpaired surrogate escape) and duplicate keys (refused: JSON
// leaves them undefined and parsers disagree) give invalid-tool-arguments
// and take precedence; otherwise the first schema refusal in document order:
// per value type, then enum, then range/length; per object member own
// "__proto__" (at any depth) and undeclared keys under additionalProperties
// false → invalid-argument; at the closing brace, the first missing required
// property in required order → missing-argument.
func (t *Tool) ValidateArgs(raw []byte) *Refusal {
	if t == nil || t.root == nil {
		return refuse(CodeUnknownTool, "", "unknown tool")
	}
	if max := t.argsBound(); len(raw) > max {
		return refuse(CodeInvalidToolArguments, "", "arguments are %d bytes, max %d", len(raw), max)
	}
	if r := prescan(raw); r != nil {
		return r
	}
	v := validators.Get().(*validator)
	defer v.release()
	v.b = raw
	v.ws()
	if v.i >= len(raw) || raw[v.i] != '{' {
		return refuse(CodeInvalidToolArguments, "", "arguments must be a JSON object")
	}
	if !v.object(t.root) {
		return v.hard
	}
	v.ws()
	if v.i != len(raw) {
		return refuse(CodeInvalidToolArguments, "", "invalid JSON: data after the arguments object")
	}
	return v.soft
}

// argsBound is the tool's bound on its arguments' bytes: MaxArgsBytes, unless WithArgsBound raised it.
func (t *Tool) argsBound() int {
	if t.maxArgs > 0 {
		return t.maxArgs
	}
	return MaxArgsBytes
}

// WithArgsBound returns a copy of t whose arguments may be up to n bytes of JSON. Only a host verb that
// carries a whole page uses it (write_mini_app: a page of up to 64 KiB, which JSON's escaping makes longer:
// backend/verbs); an app's tools keep MaxArgsBytes, in both twins.
func (t *Tool) WithArgsBound(n int) *Tool {
	c := *t
	c.maxArgs = n
	return &c
}

func (v *validator) release() {
	if cap(v.keys) > 1024 || cap(v.arena) > 1<<16 {
		return // do not keep unusually large buffers
	}
	v.b, v.i, v.hard, v.soft, v.plen = nil, 0, nil, nil, 0
	v.keys, v.arena = v.keys[:0], v.arena[:0]
	validators.Put(v)
}

func (v *validator) ws() {
	for v.i < len(v.b) && isSpace(v.b[v.i]) {
		v.i++
	}
}

func (v *validator) fail(msg string) bool {
	if v.hard == nil {
		v.hard = &Refusal{Refused: CodeInvalidToolArguments, Path: "", Message: msg}
	}
	return false
}

func (v *validator) note(code, extra, msg string) {
	if v.soft == nil {
		v.soft = &Refusal{Refused: code, Path: v.pathString(extra), Message: msg}
	}
}

func (v *validator) segBytes(s seg) []byte {
	if s.arena {
		return v.arena[s.s:s.e]
	}
	return v.b[s.s:s.e]
}

func (v *validator) pathString(extra string) string {
	var sb strings.Builder
	for _, s := range v.path[:v.plen] {
		if s.idx >= 0 {
			sb.WriteByte('/')
			sb.WriteString(strconv.Itoa(int(s.idx)))
			continue
		}
		sb.WriteString(ptr("", string(v.segBytes(s))))
	}
	if extra != "" {
		sb.WriteString(ptr("", extra))
	}
	return sb.String()
}

func (v *validator) push(s seg) bool {
	if v.plen >= len(v.path) {
		return v.fail("arguments nested too deeply")
	}
	v.path[v.plen] = s
	v.plen++
	return true
}

func (v *validator) typeErr(s *snode, got string) {
	if v.soft == nil {
		v.note(CodeInvalidArgumentType, "", "expected "+s.typ.String()+", got "+got)
	}
}

func (v *validator) value(s *snode) bool {
	v.ws()
	if v.i >= len(v.b) {
		return v.fail("invalid JSON: unexpected end of input")
	}
	switch c := v.b[v.i]; c {
	case '{':
		if s != nil && s.typ != kObject {
			v.typeErr(s, "object")
			s = nil
		}
		return v.object(s)
	case '[':
		if s != nil && s.typ != kArray {
			v.typeErr(s, "array")
			s = nil
		}
		return v.array(s)
	case '"':
		start := v.i + 1
		esc, runes, ok := v.scanString()
		if !ok {
			return false
		}
		if s != nil {
			v.checkString(s, v.b[start:v.i-1], esc, runes)
		}
		return true
	case 't', 'f', 'n':
		lit := "null"
		if c == 't' {
			lit = "true"
		} else if c == 'f' {
			lit = "false"
		}
		if !bytes.HasPrefix(v.b[v.i:], []byte(lit)) {
			return v.fail("invalid JSON: unexpected " + strconv.QuoteRune(rune(c)))
		}
		v.i += len(lit)
		if s != nil && (c == 'n' || s.typ != kBoolean) {
			got := "boolean"
			if c == 'n' {
				got = "null"
			}
			v.typeErr(s, got)
		}
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		start := v.i
		if !v.scanNumber() {
			return false
		}
		if s != nil {
			v.checkNumber(s, v.b[start:v.i])
		}
		return true
	default:
		return v.fail("invalid JSON: unexpected " + strconv.QuoteRune(rune(c)))
	}
}

func (v *validator) object(s *snode) bool {
	v.i++ // '{'
	// one bit per declared property; a property costs at least two schema
	// nodes, so MaxSchemaNodes/2 bits always suffice
	var seen [(MaxSchemaNodes/2 + 63) / 64]uint64
	base := len(v.keys)
	var set map[string]struct{}
	v.ws()
	if v.i < len(v.b) && v.b[v.i] == '}' {
		v.i++
	} else {
		for {
			v.ws()
			if v.i >= len(v.b) || v.b[v.i] != '"' {
				return v.fail("invalid JSON: expected an object key")
			}
			start := v.i + 1
			esc, _, ok := v.scanString()
			if !ok {
				return false
			}
			key := seg{idx: -1, s: int32(start), e: int32(v.i - 1)}
			if esc {
				a := len(v.arena)
				v.arena = appendUnescaped(v.arena, v.b[start:v.i-1])
				key = seg{idx: -1, s: int32(a), e: int32(len(v.arena)), arena: true}
			}
			kb := v.segBytes(key)
			if v.isDup(kb, base, &set) {
				v.push(key)
				if v.hard == nil {
					v.hard = &Refusal{Refused: CodeInvalidToolArguments, Path: v.pathString(""), Message: "duplicate key"}
				}
				return false
			}
			v.keys = append(v.keys, key)
			v.ws()
			if v.i >= len(v.b) || v.b[v.i] != ':' {
				return v.fail("invalid JSON: expected ':'")
			}
			v.i++
			if !v.push(key) {
				return false
			}
			var child *snode
			switch {
			case string(kb) == "__proto__":
				v.note(CodeInvalidArgument, "", `own "__proto__" key is not allowed`)
			case s != nil:
				if j := s.lookup(kb); j >= 0 {
					seen[j>>6] |= 1 << (j & 63)
					child = s.props[j].node
				} else if s.closed {
					v.note(CodeInvalidArgument, "", "property is not declared and additionalProperties is false")
				}
			}
			if !v.value(child) {
				return false
			}
			more, ok := v.member('}', "invalid JSON: expected ',' or '}'")
			if !ok {
				return false
			}
			if !more {
				break
			}
		}
	}
	if s != nil && v.soft == nil {
		for _, j := range s.required {
			if seen[j>>6]&(1<<(j&63)) == 0 {
				v.note(CodeMissingArgument, s.props[j].name, "missing required argument "+strconv.Quote(s.props[j].name))
				break
			}
		}
	}
	v.keys = v.keys[:base]
	return true
}

// isDup reports whether kb repeats a key of the current object (keys[base:]);
// a set is built once an object has many keys.
func (v *validator) isDup(kb []byte, base int, set *map[string]struct{}) bool {
	if *set == nil {
		if len(v.keys)-base < 32 {
			for _, k := range v.keys[base:] {
				if bytes.Equal(v.segBytes(k), kb) {
					return true
				}
			}
			return false
		}
		*set = make(map[string]struct{}, 64)
		for _, k := range v.keys[base:] {
			(*set)[string(v.segBytes(k))] = struct{}{}
		}
	}
	if _, ok := (*set)[string(kb)]; ok {
		return true
	}
	(*set)[string(kb)] = struct{}{}
	return false
}

func (n *snode) lookup(kb []byte) int {
	if len(n.props) > 8 && n.index != nil {
		if j, ok := n.index[string(kb)]; ok {
			return j
		}
		return -1
	}
	for j := range n.props {
		if n.props[j].name == string(kb) {
			return j
		}
	}
	return -1
}

func (v *validator) array(s *snode) bool {
	v.i++ // '['
	var items *snode
	if s != nil {
		items = s.items
	}
	v.ws()
	if v.i < len(v.b) && v.b[v.i] == ']' {
		v.i++
		return true
	}
	for idx := int32(0); ; idx++ {
		if !v.push(seg{idx: idx}) || !v.value(items) {
			return false
		}
		if more, ok := v.member(']', "invalid JSON: expected ',' or ']'"); !more {
			return ok
		}
	}
}

// member ends a member of an object or array: it leaves the member's path and reads the ',' that
// announces another (more) or the closing byte (not more); anything else fails with msg.
func (v *validator) member(closing byte, msg string) (more, ok bool) {
	v.plen--
	v.ws()
	if v.i < len(v.b) {
		switch v.b[v.i] {
		case ',':
			v.i++
			return true, true
		case closing:
			v.i++
			return false, true
		}
	}
	return false, v.fail(msg)
}
