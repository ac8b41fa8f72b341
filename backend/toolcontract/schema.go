package toolcontract

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

type kind uint8

const (
	kString kind = iota + 1
	kNumber
	kInteger
	kBoolean
	kArray
	kObject
)

var kindNames = map[string]kind{
	"string": kString, "number": kNumber, "integer": kInteger,
	"boolean": kBoolean, "array": kArray, "object": kObject,
}

func (k kind) String() string {
	for n, v := range kindNames {
		if v == k {
			return n
		}
	}
	return "?"
}

// snode is the enforced form of one schema.
type snode struct {
	typ            kind
	minLen, maxLen int // -1: absent
	hasMin, hasMax bool
	min, max       num
	enumStr        []string
	enumNum        []num
	hasEnum        bool
	items          *snode
	props          []prop
	index          map[string]int // property name → index into props
	required       []int          // indexes into props
	closed         bool           // additionalProperties: false
}

type prop struct {
	name string
	node *snode
}

type schemaCtx uint8

const (
	ctxRoot schemaCtx = iota
	ctxProperty
	ctxItems
)

// allowed lists the keywords allowed per type besides type, description,
// title. Array items allow only enum (and not for boolean).
var allowed = map[kind][]string{
	kString:  {"minLength", "maxLength", "enum"},
	kNumber:  {"minimum", "maximum", "enum"},
	kInteger: {"minimum", "maximum", "enum"},
	kBoolean: {},
	kArray:   {"items"},
	kObject:  {"properties", "required", "additionalProperties"},
}

func keywordAllowed(k kind, ctx schemaCtx, key string) bool {
	switch key {
	case "type", "description", "title":
		return true
	}
	if ctx == ctxItems {
		return key == "enum" && k != kBoolean
	}
	for _, a := range allowed[k] {
		if a == key {
			return true
		}
	}
	return false
}

// ptr appends one reference token to a JSON pointer (RFC 6901).
func ptr(base, tok string) string {
	if strings.ContainsAny(tok, "~/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
	}
	return base + "/" + tok
}

func badParams(path, format string, a ...any) *Refusal {
	return refuse(CodeInvalidToolParameters, path, format, a...)
}

func schemaBounds(s *jval) *Refusal {
	depthOver, nodesOver := treeBounds(s, MaxSchemaDepth, MaxSchemaNodes)
	if nodesOver {
		return badParams("", "schema has more than %d nodes", MaxSchemaNodes)
	}
	if depthOver {
		return badParams("", "schema is nested deeper than %d levels", MaxSchemaDepth)
	}
	return nil
}

// checkSchema validates one schema object of the enforceable subset and
// builds its enforced form. Order (shared with toolcontract.js): duplicate
// keys; type; unsupported keywords (code point order); description, title;
// minLength, maxLength; minimum, maximum; enum; items; properties (code point
// order of names); required; additionalProperties.
func checkSchema(v *jval, path string, ctx schemaCtx) (*snode, *Refusal) {
	if v.k != jObj {
		return nil, badParams(path, "schema must be an object, got %s", v.kindName())
	}
	if v.dup != "" {
		return nil, badParams(ptr(path, v.dup), "duplicate key %q", v.dup)
	}
	t := v.get("type")
	if t == nil {
		return nil, badParams(ptr(path, "type"), "type is required")
	}
	if t.k != jStr {
		return nil, badParams(ptr(path, "type"), "type must be a single string")
	}
	k, ok := kindNames[t.s]
	if !ok {
		return nil, badParams(ptr(path, "type"), "unsupported type %q", t.s)
	}
	switch {
	case ctx == ctxRoot && k != kObject:
		return nil, badParams(ptr(path, "type"), `parameters must have type "object"`)
	case ctx == ctxItems && (k == kArray || k == kObject):
		return nil, badParams(ptr(path, "type"), "array items must have a primitive type")
	}
	for _, key := range v.sortedKeys() {
		if !keywordAllowed(k, ctx, key) {
			where := "type " + k.String()
			if ctx == ctxItems {
				where = "array items"
			}
			return nil, badParams(ptr(path, key), "unsupported keyword %q for %s", key, where)
		}
	}
	for _, a := range []string{"description", "title"} {
		if x := v.get(a); x != nil && x.k != jStr {
			return nil, badParams(ptr(path, a), "%s must be a string", a)
		}
	}
	n := &snode{typ: k, minLen: -1, maxLen: -1}
	if r := lengthBounds(v, n, path); r != nil {
		return nil, r
	}
	if r := numberBounds(v, n, path); r != nil {
		return nil, r
	}
	if r := checkEnum(v, n, path); r != nil {
		return nil, r
	}
	switch k {
	case kArray:
		it := v.get("items")
		if it == nil {
			return nil, badParams(ptr(path, "items"), "array requires items with a primitive type")
		}
		items, r := checkSchema(it, ptr(path, "items"), ctxItems)
		if r != nil {
			return nil, r
		}
		n.items = items
	case kObject:
		if r := checkObject(v, n, path); r != nil {
			return nil, r
		}
	}
	return n, nil
}

// nonNegInt reads minLength/maxLength: a non-negative integer (2.0 is 2).
// Values beyond any possible argument length are clamped.
func nonNegInt(x *jval) (int, bool) {
	if x.k != jNum {
		return 0, false
	}
	f, ok := x.float()
	if !ok || f < 0 || f != math.Trunc(f) {
		return 0, false
	}
	if f > 1<<31 {
		f = 1 << 31
	}
	return int(f), true
}

func lengthBounds(v *jval, n *snode, path string) *Refusal {
	for _, a := range []string{"minLength", "maxLength"} {
		x := v.get(a)
		if x == nil {
			continue
		}
		l, ok := nonNegInt(x)
		if !ok {
			return badParams(ptr(path, a), "%s must be a non-negative integer", a)
		}
		if a == "minLength" {
			n.minLen = l
		} else {
			n.maxLen = l
		}
	}
	if n.minLen >= 0 && n.maxLen >= 0 && n.minLen > n.maxLen {
		return badParams(ptr(path, "minLength"), "minLength %d is greater than maxLength %d (unsatisfiable)", n.minLen, n.maxLen)
	}
	return nil
}

func numberBounds(v *jval, n *snode, path string) *Refusal {
	var fmin, fmax float64
	for _, a := range []string{"minimum", "maximum"} {
		x := v.get(a)
		if x == nil {
			continue
		}
		if x.k != jNum {
			return badParams(ptr(path, a), "%s must be a number", a)
		}
		f, ok := x.float()
		if !ok {
			return badParams(ptr(path, a), "%s must be a finite number", a)
		}
		d := parseNum([]byte(formatNumber(f)))
		if a == "minimum" {
			n.hasMin, n.min, fmin = true, d, f
		} else {
			n.hasMax, n.max, fmax = true, d, f
		}
	}
	if n.hasMin && n.hasMax {
		if fmin > fmax {
			return badParams(ptr(path, "minimum"), "minimum %v is greater than maximum %v (unsatisfiable)", fmin, fmax)
		}
		if n.typ == kInteger && math.Ceil(fmin) > math.Floor(fmax) {
			return badParams(ptr(path, "minimum"), "no integer lies between minimum %v and maximum %v (unsatisfiable)", fmin, fmax)
		}
	}
	return nil
}

func checkEnum(v *jval, n *snode, path string) *Refusal {
	e := v.get("enum")
	if e == nil {
		return nil
	}
	p := ptr(path, "enum")
	if e.k != jArr || len(e.arr) == 0 {
		return badParams(p, "enum must be a non-empty array")
	}
	n.hasEnum = true
	satisfiable := false
	for i, m := range e.arr {
		mp := fmt.Sprintf("%s/%d", p, i)
		switch n.typ {
		case kString:
			if m.k != jStr {
				return badParams(mp, "enum member must be a string")
			}
			n.enumStr = append(n.enumStr, m.s)
			l := runeCount(m.s)
			if (n.minLen < 0 || l >= n.minLen) && (n.maxLen < 0 || l <= n.maxLen) {
				satisfiable = true
			}
		case kNumber, kInteger:
			if m.k != jNum {
				return badParams(mp, "enum member must be a %s", n.typ)
			}
			f, ok := m.float()
			if !ok {
				return badParams(mp, "enum member must be a finite number")
			}
			d := parseNum([]byte(formatNumber(f)))
			if n.typ == kInteger && !d.isInt() {
				return badParams(mp, "enum member must be an integer")
			}
			n.enumNum = append(n.enumNum, d)
			if (!n.hasMin || cmpNum(&d, &n.min) >= 0) && (!n.hasMax || cmpNum(&d, &n.max) <= 0) {
				satisfiable = true
			}
		}
	}
	if !satisfiable {
		return badParams(p, "no enum member satisfies the declared bounds (unsatisfiable)")
	}
	return nil
}

func runeCount(s string) int {
	c := 0
	for range s {
		c++
	}
	return c
}

func checkObject(v *jval, n *snode, path string) *Refusal {
	index := map[string]int{}
	if ps := v.get("properties"); ps != nil {
		pp := ptr(path, "properties")
		if ps.k != jObj {
			return badParams(pp, "properties must be an object")
		}
		if ps.dup != "" {
			return badParams(ptr(pp, ps.dup), "duplicate property %q", ps.dup)
		}
		if ps.has("__proto__") {
			return badParams(ptr(pp, "__proto__"), `property name "__proto__" is not allowed`)
		}
		for _, name := range ps.sortedKeys() {
			child, r := checkSchema(ps.get(name), ptr(pp, name), ctxProperty)
			if r != nil {
				return r
			}
			index[name] = len(n.props)
			n.props = append(n.props, prop{name: name, node: child})
		}
	}
	n.index = index
	if rq := v.get("required"); rq != nil {
		rp := ptr(path, "required")
		if rq.k != jArr {
			return badParams(rp, "required must be an array of property names")
		}
		seen := map[string]bool{}
		for i, x := range rq.arr {
			ip := fmt.Sprintf("%s/%d", rp, i)
			switch {
			case x.k != jStr:
				return badParams(ip, "required entries must be strings")
			case x.s == "__proto__":
				return badParams(ip, `"__proto__" cannot be required`)
			case seen[x.s]:
				return badParams(ip, "%q is listed twice in required", x.s)
			}
			seen[x.s] = true
			j, ok := index[x.s]
			if !ok {
				return badParams(ip, "required names %q, which is not in properties", x.s)
			}
			n.required = append(n.required, j)
		}
	}
	if ap := v.get("additionalProperties"); ap != nil {
		if ap.k != jBool {
			return badParams(ptr(path, "additionalProperties"), "additionalProperties must be a boolean")
		}
		n.closed = !ap.b
	}
	return nil
}

//go:embed metaschema.json
var metaSchemaJSON []byte

var (
	metaOnce   sync.Once
	metaSchema *jsonschema.Schema
	metaErr    error
)

func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("toolcontract: no remote schemas (%s)", s)
	}
	return c
}

func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// metaCheck validates a normalized schema against the embedded meta-schema
// (belt and braces behind checkSchema, which gives the precise verdicts).
func metaCheck(norm []byte) *Refusal {
	metaOnce.Do(func() {
		c := newCompiler()
		if metaErr = c.AddResource("urn:voicebox:toolcontract:meta", bytes.NewReader(metaSchemaJSON)); metaErr == nil {
			metaSchema, metaErr = c.Compile("urn:voicebox:toolcontract:meta")
		}
	})
	if metaErr != nil {
		return badParams("", "meta-schema unavailable: %v", metaErr)
	}
	v, err := decodeAny(norm)
	if err != nil {
		return badParams("", "schema is not valid JSON: %v", err)
	}
	if err := metaSchema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		path := ""
		if errors.As(err, &ve) {
			leaf := ve
			for len(leaf.Causes) > 0 {
				leaf = leaf.Causes[0]
			}
			path = leaf.InstanceLocation
		}
		return badParams(path, "schema is outside the enforceable subset: %v", err)
	}
	return nil
}
