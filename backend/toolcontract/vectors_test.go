package toolcontract

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// vector is one expanded case of testdata/vectors.json.
type vector struct {
	id       string
	kind     string // tool, register, args
	tool     []byte
	register [][]byte
	args     []byte
	call     string
	goOnly   bool
	expect   *jval
}

func loadVectors(t testing.TB) (cases []vector, tools map[string][]byte) {
	t.Helper()
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseTree(raw)
	if err != nil {
		t.Fatal(err)
	}
	tools = map[string][]byte{}
	ts := doc.get("tools")
	for i, k := range ts.keys {
		tools[k] = expandGen(ts.vals[i]).encode()
	}
	for _, c := range doc.get("cases").arr {
		v := vector{id: c.get("id").s, expect: c.get("expect")}
		if g := c.get("goOnly"); g != nil && g.b {
			v.goOnly = true
		}
		switch {
		case c.has("register"):
			v.kind = "register"
			for _, d := range expandGen(c.get("register")).arr {
				v.register = append(v.register, d.encode())
			}
		case c.has("args"):
			v.kind = "args"
			ref := c.get("toolRef").s
			v.tool = tools[ref]
			if v.tool == nil {
				t.Fatalf("%s: unknown toolRef %q", v.id, ref)
			}
			a := expandGen(c.get("args"))
			if a.k != jStr {
				t.Fatalf("%s: args must be JSON text", v.id)
			}
			v.args = []byte(a.s)
			var decl struct{ Name string }
			_ = json.Unmarshal(v.tool, &decl)
			v.call = decl.Name
			if cl := c.get("call"); cl != nil {
				v.call = cl.s
			}
		default:
			v.kind = "tool"
			if tt := c.get("toolText"); tt != nil {
				v.tool = []byte(tt.s)
			} else {
				v.tool = expandGen(c.get("tool")).encode()
			}
		}
		cases = append(cases, v)
	}
	return cases, tools
}

func genInt(g *jval, key string) int {
	n, err := strconv.Atoi(g.get(key).s)
	if err != nil {
		panic(err)
	}
	return n
}

func typeObject() *jval {
	o := &jval{k: jObj}
	o.set("type", str("object"))
	return o
}

// expandGen expands {"$gen": …} values (documented in vectors.json).
func expandGen(v *jval) *jval {
	switch v.k {
	case jArr:
		return &jval{k: jArr, arr: expandList(v.arr)}
	case jObj:
		g := v.get("$gen")
		if g == nil {
			o := &jval{k: jObj}
			for i, k := range v.keys {
				o.set(k, expandGen(v.vals[i]))
			}
			return o
		}
		switch g.s {
		case "repeat":
			return str(strings.Repeat(v.get("s").s, genInt(v, "n")))
		case "concat":
			var sb strings.Builder
			for _, p := range v.get("parts").arr {
				sb.WriteString(expandGen(p).s)
			}
			return str(sb.String())
		case "manyKeys":
			var sb strings.Builder
			sb.WriteByte('{')
			n := genInt(v, "n")
			for i := 0; i < n; i++ {
				if i > 0 {
					sb.WriteByte(',')
				}
				fmt.Fprintf(&sb, `"k%d":0`, i)
			}
			if d := v.get("dup"); d != nil && d.b {
				sb.WriteString(`,"k0":0`)
			}
			sb.WriteByte('}')
			return str(sb.String())
		case "deepSchema":
			depth := genInt(v, "depth")
			k := (depth + 1) / 2
			inner := typeObject()
			if depth%2 == 0 {
				k = depth / 2
				inner.set("properties", &jval{k: jObj})
			}
			for i, key := range v.keys {
				if key != "$gen" && key != "depth" {
					inner.set(key, expandGen(v.vals[i]))
				}
			}
			cur := inner
			for i := 1; i < k; i++ {
				o := typeObject()
				ps := &jval{k: jObj}
				ps.set("a", cur)
				o.set("properties", ps)
				cur = o
			}
			return cur
		case "wideSchema":
			nodes := genInt(v, "nodes")
			o := typeObject()
			if nodes%2 == 0 {
				o.set("description", str("x"))
				nodes--
			}
			ps := &jval{k: jObj}
			for i := 0; i < (nodes-3)/2; i++ {
				p := &jval{k: jObj}
				p.set("type", str("string"))
				ps.set("p"+strconv.Itoa(i), p)
			}
			o.set("properties", ps)
			return o
		case "manyTools":
			return &jval{k: jArr, arr: manyTools(genInt(v, "n"))}
		}
		panic("unknown generator " + g.s)
	}
	return v
}

func manyTools(n int) []*jval {
	var out []*jval
	for i := 0; i < n; i++ {
		d := &jval{k: jObj}
		d.set("name", str("t"+strconv.Itoa(i)))
		d.set("description", str(""))
		d.set("parameters", typeObject())
		out = append(out, d)
	}
	return out
}

func expandList(list []*jval) []*jval {
	var out []*jval
	for _, e := range list {
		if e.k == jObj && e.get("$gen") != nil && e.get("$gen").s == "manyTools" {
			if sp := e.get("splice"); sp != nil && sp.b {
				out = append(out, manyTools(genInt(e, "n"))...)
				continue
			}
		}
		out = append(out, expandGen(e))
	}
	return out
}

func checkVerdict(t *testing.T, id string, want *jval, r *Refusal) {
	t.Helper()
	if ok := want.get("ok"); ok != nil && ok.b {
		if r != nil {
			t.Errorf("%s: want ok, got %s at %q (%s)", id, r.Refused, r.Path, r.Message)
		}
		return
	}
	code, path := want.get("refused").s, want.get("path").s
	if r == nil {
		t.Errorf("%s: want %s at %q, got ok", id, code, path)
		return
	}
	if r.Refused != code || r.Path != path {
		t.Errorf("%s: want %s at %q, got %s at %q (%s)", id, code, path, r.Refused, r.Path, r.Message)
	}
}

func TestVectors(t *testing.T) {
	cases, _ := loadVectors(t)
	if len(cases) < 150 {
		t.Fatalf("only %d vectors", len(cases))
	}
	counts := map[string]int{}
	for _, c := range cases {
		counts[c.kind]++
		switch c.kind {
		case "tool":
			tool, r := ValidateTool(c.tool)
			checkVerdict(t, c.id, c.expect, r)
			if (tool == nil) == (r == nil) {
				t.Errorf("%s: tool and refusal both nil or both set", c.id)
			}
		case "register":
			accepted, verdicts := RegisterAll(toRaw(c.register))
			var want []*jval
			for _, w := range c.expect.arr {
				n := 1
				if rp := w.get("repeat"); rp != nil {
					n, _ = strconv.Atoi(rp.s)
				}
				for i := 0; i < n; i++ {
					want = append(want, w)
				}
			}
			if len(verdicts) != len(want) {
				t.Errorf("%s: %d verdicts, want %d", c.id, len(verdicts), len(want))
				continue
			}
			oks := 0
			for i, v := range verdicts {
				var r *Refusal
				if !v.OK {
					r = &Refusal{Refused: v.Refused, Path: v.Path, Message: v.Message}
				} else {
					oks++
				}
				checkVerdict(t, fmt.Sprintf("%s[%d]", c.id, i), want[i], r)
			}
			if len(accepted) != oks {
				t.Errorf("%s: %d accepted, %d ok verdicts", c.id, len(accepted), oks)
			}
		case "args":
			tool, r := ValidateTool(c.tool)
			if r != nil {
				t.Fatalf("%s: tool refused: %v", c.id, r)
			}
			_, r = ValidateCall([]*Tool{tool}, c.call, c.args)
			checkVerdict(t, c.id, c.expect, r)
			// differential: whatever we accept, jsonschema/v5 accepts too
			if r == nil {
				if err := tool.reference(c.args); err != nil {
					t.Errorf("%s: accepted, but jsonschema/v5 refuses: %v", c.id, err)
				}
			}
		}
	}
	t.Logf("vectors: %v", counts)
}

func toRaw(bs [][]byte) []json.RawMessage {
	out := make([]json.RawMessage, len(bs))
	for i, b := range bs {
		out[i] = b
	}
	return out
}

// inexpressible lists refusals the meta-schema cannot state (checked in code
// only); every other invalid-tool-parameters vector must also fail the
// meta-schema, so the two walls agree.
var inexpressible = map[string]bool{
	"tool/both-differ":                 true,
	"tool/schema-depth-17":             true,
	"tool/schema-nodes-513":            true,
	"tool/required-unknown":            true,
	"tool/required-without-properties": true,
	"tool/minLength-gt-maxLength":      true,
	"tool/minimum-gt-maximum":          true,
	"tool/integer-no-integer-between":  true,
	"tool/enum-none-within-maxLength":  true,
	"tool/enum-none-within-minLength":  true,
	"tool/enum-none-within-maximum":    true,
	"tool/enum-none-within-minimum":    true,
	"tool/minimum-overflow":            true,
	"tool/params-missing":              true,
	"tool/go-duplicate-property":       true,
	"tool/go-duplicate-keyword":        true,
}

func TestMetaSchemaAgrees(t *testing.T) {
	cases, _ := loadVectors(t)
	checked := 0
	for _, c := range cases {
		if c.kind != "tool" || c.expect.get("refused") == nil || c.expect.get("refused").s != CodeInvalidToolParameters || inexpressible[c.id] {
			continue
		}
		doc, err := parseTree(c.tool)
		if err != nil {
			t.Fatal(err)
		}
		p := doc.get("parameters")
		if p == nil {
			p = doc.get("inputSchema")
		}
		if r := metaCheck(p.encode()); r == nil {
			t.Errorf("%s: refused by code but the meta-schema accepts it", c.id)
		}
		checked++
	}
	// and every accepted declaration satisfies the meta-schema (ValidateTool
	// runs metaCheck, so an accepted vector proves it)
	t.Logf("meta-schema agrees on %d refused declarations", checked)
}
