package toolcontract

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTwinDifferential feeds the same mutated declarations and arguments to
// the Go validator and to toolcontract.js (through testdata/twin.mjs) and
// requires identical verdicts (code and path). Inputs are valid UTF-8 without
// duplicate declaration keys, so both sides see the same document.
func TestTwinDifferential(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not in PATH")
	}
	n := 2000
	if testing.Short() {
		n = 300
	}
	if v, err := strconv.Atoi(os.Getenv("VOICEBOX_TWIN_N")); err == nil && v > 0 {
		n = v // a longer run: VOICEBOX_TWIN_N=20000
	}
	seed := int64(20260101)
	if v, err := strconv.ParseInt(os.Getenv("VOICEBOX_TWIN_SEED"), 10, 64); err == nil {
		seed = v
	}
	rng := rand.New(rand.NewSource(seed))
	cases, tools := loadVectors(t)
	var decls [][]byte
	var argTexts []string
	for _, c := range cases {
		if c.kind == "tool" && !c.goOnly && len(c.tool) < 4096 {
			decls = append(decls, c.tool)
		}
		if c.kind == "args" && len(c.args) < 4096 {
			argTexts = append(argTexts, string(c.args))
		}
	}
	var toolList [][]byte
	for _, d := range tools {
		toolList = append(toolList, d)
	}
	type input struct {
		Tool string  `json:"tool"`
		Args *string `json:"args,omitempty"`
	}
	var ins []input
	for i := 0; i < n; i++ {
		d, _ := parseTree(decls[rng.Intn(len(decls))])
		for k := rng.Intn(4); k >= 0; k-- {
			mutateDecl(rng, d)
		}
		ins = append(ins, input{Tool: string(d.encode())})
	}
	for i := 0; i < 4*n; i++ {
		a := mutateText(rng, argTexts[rng.Intn(len(argTexts))], rng.Intn(3))
		ins = append(ins, input{Tool: string(toolList[rng.Intn(len(toolList))]), Args: &a})
	}
	body, _ := json.Marshal(ins)
	cmd := exec.Command(node, "testdata/twin.mjs")
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var js []struct {
		OK      bool   `json:"ok"`
		Refused string `json:"refused"`
		Path    string `json:"path"`
	}
	if err := json.Unmarshal(out, &js); err != nil || len(js) != len(ins) {
		t.Fatalf("node output: %v (%d results)", err, len(js))
	}
	codes := map[string]int{}
	fails := 0
	type verdict struct {
		tool *Tool
		r    *Refusal
	}
	memo := map[string]verdict{}
	for i, in := range ins {
		v, ok := memo[in.Tool]
		if !ok {
			v.tool, v.r = ValidateTool([]byte(in.Tool))
			memo[in.Tool] = v
		}
		tool, r := v.tool, v.r
		if r == nil && in.Args != nil {
			r = tool.ValidateArgs([]byte(*in.Args))
		}
		goV := "ok"
		if r != nil {
			goV = r.Refused + " " + r.Path
		}
		codes[strings.Fields(goV)[0]]++
		jsV := "ok"
		if !js[i].OK {
			jsV = js[i].Refused + " " + js[i].Path
		}
		if goV != jsV {
			fails++
			if fails <= 10 {
				args := "<none>"
				if in.Args != nil {
					args = *in.Args
				}
				t.Errorf("go %q, js %q\ntool %s\nargs %q", goV, jsV, in.Tool, args)
			}
		}
	}
	t.Logf("%d inputs, verdicts: %v", len(ins), codes)
}

var declKeys = []string{"type", "enum", "minimum", "maximum", "minLength", "maxLength", "items", "properties",
	"required", "additionalProperties", "description", "title", "pattern", "__proto__", "name", "a", "constructor"}

var declValues = []string{`"string"`, `"object"`, `"array"`, `"integer"`, `"number"`, `"boolean"`, `"x"`, `"__proto__"`,
	`0`, `-1`, `1.5`, `2`, `2.0`, `1e300`, `3`, `true`, `false`, `null`, `[]`, `["a"]`, `["a","a"]`, `[1,2]`, `[1.5]`, `{}`,
	`{"type":"string"}`, `{"type":"integer","minimum":1}`, `{"a":{"type":"number"}}`, `{"type":"array","items":{"type":"string"}}`,
	`"😀😀"`, `"é"`}

// mutateDecl sets or deletes one key of a random object inside d.
func mutateDecl(rng *rand.Rand, d *jval) {
	var objs []*jval
	var walk func(v *jval)
	walk = func(v *jval) {
		if v.k == jObj {
			objs = append(objs, v)
			for _, c := range v.vals {
				walk(c)
			}
		}
		if v.k == jArr {
			for _, c := range v.arr {
				walk(c)
			}
		}
	}
	walk(d)
	if len(objs) == 0 {
		return
	}
	o := objs[rng.Intn(len(objs))]
	key := declKeys[rng.Intn(len(declKeys))]
	if rng.Intn(4) == 0 && len(o.keys) > 0 {
		i := rng.Intn(len(o.keys))
		o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
		o.vals = append(o.vals[:i:i], o.vals[i+1:]...)
		return
	}
	val, _ := parseTree([]byte(declValues[rng.Intn(len(declValues))]))
	for i, k := range o.keys {
		if k == key {
			o.vals[i] = val
			return
		}
	}
	o.set(key, val)
}

var textTokens = []string{"{", "}", "[", "]", ",", ":", `"`, `\`, `\u0041`, `\ud83d`, `\ude00`, `\ud83d\ude00`, "0", "1", "-",
	".", "e", "E", "+", "1.5", "2.0", "1e400", "1e-400", "true", "null", "false", `"__proto__"`, `"\u005f_proto__"`,
	`"constructor"`, `"team"`, `"home"`, `"points"`, " ", "é", "😀", "\n", "\t", `"x":1`, `{"a":1}`, `"s":"ab"`, "10", "9.999",
	`"n":0.1`, `"i":2.0`, `"c":"bb"`, `"tags":["x"]`}

// mutateText applies edits at rune boundaries, keeping valid UTF-8.
func mutateText(rng *rand.Rand, s string, edits int) string {
	for ; edits > 0; edits-- {
		rs := []rune(s)
		pos := 0
		if len(rs) > 0 {
			pos = rng.Intn(len(rs) + 1)
		}
		tok := []rune(textTokens[rng.Intn(len(textTokens))])
		switch rng.Intn(3) {
		case 0: // insert
			rs = append(rs[:pos:pos], append(tok, rs[pos:]...)...)
		case 1: // delete a rune
			if pos < len(rs) {
				rs = append(rs[:pos:pos], rs[pos+1:]...)
			}
		default: // replace a rune
			if pos < len(rs) {
				rs = append(rs[:pos:pos], append(tok, rs[pos+1:]...)...)
			}
		}
		s = string(rs)
	}
	if !utf8.ValidString(s) {
		panic("mutation broke UTF-8")
	}
	return s
}
