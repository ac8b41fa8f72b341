package toolcontract

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// jval is an ordered JSON tree used for declarations (not on the argument
// hot path). Numbers keep their text.
type jval struct {
	k    jkind
	b    bool
	s    string // string value, or number text
	arr  []*jval
	keys []string
	vals []*jval
	dup  string // first duplicate key of an object, if any
}

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNum
	jStr
	jArr
	jObj
)

func (v *jval) get(key string) *jval {
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

func (v *jval) has(key string) bool {
	for _, k := range v.keys {
		if k == key {
			return true
		}
	}
	return false
}

// sortedKeys returns the keys in Unicode code point order (byte order of
// valid UTF-8), the visiting order shared with the JavaScript twin.
func (v *jval) sortedKeys() []string {
	ks := append([]string(nil), v.keys...)
	sort.Strings(ks)
	return ks
}

func (v *jval) kindName() string {
	switch v.k {
	case jNull:
		return "null"
	case jBool:
		return "boolean"
	case jNum:
		return "number"
	case jStr:
		return "string"
	case jArr:
		return "array"
	}
	return "object"
}

// parseTree parses one JSON document into a jval tree (iteratively, so any
// depth is safe), recording duplicate keys instead of dropping them.
func parseTree(raw []byte) (*jval, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		v      *jval
		key    string
		hasKey bool
	}
	var stack []*frame
	var root *jval
	put := func(v *jval) error {
		if len(stack) == 0 {
			root = v
			return nil
		}
		top := stack[len(stack)-1]
		if top.v.k == jArr {
			top.v.arr = append(top.v.arr, v)
			return nil
		}
		if !top.hasKey {
			return errors.New("missing key")
		}
		if top.v.dup == "" && top.v.has(top.key) {
			top.v.dup = top.key
		}
		top.v.keys = append(top.v.keys, top.key)
		top.v.vals = append(top.v.vals, v)
		top.hasKey = false
		return nil
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if len(stack) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			break
		}
		if err != nil {
			return nil, err
		}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.v.k == jObj && !top.hasKey {
				if s, ok := tok.(string); ok {
					top.key, top.hasKey = s, true
					continue
				}
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				v := &jval{k: jObj}
				if t == '[' {
					v.k = jArr
				}
				if err := put(v); err != nil {
					return nil, err
				}
				stack = append(stack, &frame{v: v})
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if err := put(&jval{k: jStr, s: t}); err != nil {
				return nil, err
			}
		case json.Number:
			if err := put(&jval{k: jNum, s: string(t)}); err != nil {
				return nil, err
			}
		case bool:
			if err := put(&jval{k: jBool, b: t}); err != nil {
				return nil, err
			}
		case nil:
			if err := put(&jval{k: jNull}); err != nil {
				return nil, err
			}
		}
		if len(stack) == 0 && root != nil {
			// one value read; anything after it (other than space) is an error
			if _, err := dec.Token(); err != io.EOF {
				return nil, errors.New("trailing data after JSON value")
			}
			break
		}
	}
	if root == nil {
		return nil, errors.New("empty document")
	}
	return root, nil
}

// float returns the double nearest to a number's text (ok=false if it is not
// finite).
func (v *jval) float() (float64, bool) {
	f, err := strconv.ParseFloat(v.s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// formatNumber renders a double like JavaScript's Number#toString (and
// encoding/json): shortest round-trip digits; -0 becomes 0.
func formatNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	b, _ := json.Marshal(f)
	return string(b)
}

// encode renders v as compact JSON, keeping key order, with numbers
// normalized to their double's shortest form (the value JavaScript sees).
func (v *jval) encode() json.RawMessage {
	var buf bytes.Buffer
	v.write(&buf)
	return buf.Bytes()
}

func (v *jval) write(buf *bytes.Buffer) {
	switch v.k {
	case jNull:
		buf.WriteString("null")
	case jBool:
		buf.WriteString(strconv.FormatBool(v.b))
	case jNum:
		if f, ok := v.float(); ok {
			buf.WriteString(formatNumber(f))
		} else {
			buf.WriteString(v.s)
		}
	case jStr:
		writeString(buf, v.s)
	case jArr:
		buf.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				buf.WriteByte(',')
			}
			e.write(buf)
		}
		buf.WriteByte(']')
	case jObj:
		buf.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			v.vals[i].write(buf)
		}
		buf.WriteByte('}')
	}
}

func writeString(buf *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf.WriteByte('\\')
				buf.WriteByte(c)
			case c == '\n':
				buf.WriteString(`\n`)
			case c == '\r':
				buf.WriteString(`\r`)
			case c == '\t':
				buf.WriteString(`\t`)
			case c < 0x20:
				buf.WriteString(`\u00`)
				buf.WriteByte(hex[c>>4])
				buf.WriteByte(hex[c&15])
			default:
				buf.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		buf.WriteRune(r) // invalid bytes become U+FFFD
		i += n
	}
	buf.WriteByte('"')
}

// jsonEqual compares two JSON values like JavaScript would after parsing:
// numbers by double value, objects regardless of key order.
func jsonEqual(a, b *jval) bool {
	if a.k != b.k {
		return false
	}
	switch a.k {
	case jNull:
		return true
	case jBool:
		return a.b == b.b
	case jStr:
		return a.s == b.s
	case jNum:
		fa, oka := a.float()
		fb, okb := b.float()
		if !oka || !okb {
			return a.s == b.s
		}
		return fa == fb
	case jArr:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !jsonEqual(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	}
	if len(a.keys) != len(b.keys) {
		return false
	}
	for i, k := range a.keys {
		bv := b.get(k)
		if bv == nil || !jsonEqual(a.vals[i], bv) {
			return false
		}
	}
	return true
}

// treeBounds reports whether v (as a JSON value) exceeds maxDepth levels or
// maxNodes nodes, stopping early. Levels and nodes are defined as for
// arguments (see prescan): every value is a node; each object or array is one
// level deeper than the container holding it, the outermost at level 1.
func treeBounds(v *jval, maxDepth, maxNodes int) (depthOver, nodesOver bool) {
	nodes := 0
	var walk func(v *jval, depth int) bool
	walk = func(v *jval, depth int) bool {
		nodes++
		if nodes > maxNodes {
			nodesOver = true
			return false
		}
		if v.k != jArr && v.k != jObj {
			return true
		}
		if depth+1 > maxDepth {
			depthOver = true
			return false
		}
		kids := v.arr
		if v.k == jObj {
			kids = v.vals
		}
		for _, c := range kids {
			if !walk(c, depth+1) {
				return false
			}
		}
		return true
	}
	walk(v, 0)
	return
}
