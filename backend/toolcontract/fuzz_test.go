package toolcontract

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// seedTools returns the declarations used by the argument fuzzer: the
// vectors' shared tools, selected by the fuzzer with a byte.
func seedTools(t testing.TB) []*Tool {
	_, tools := loadVectors(t)
	names := []string{"set_score", "strings", "enumLen", "nums", "bool", "arr", "closed", "nested", "open", "proto", "weird"}
	var out []*Tool
	for _, n := range names {
		tool, r := ValidateTool(tools[n])
		if r != nil {
			t.Fatalf("%s: %v", n, r)
		}
		out = append(out, tool)
	}
	return out
}

func FuzzValidateTool(f *testing.F) {
	cases, _ := loadVectors(f)
	for _, c := range cases {
		switch c.kind {
		case "tool":
			if len(c.tool) < 8192 {
				f.Add(c.tool)
			}
		case "args":
			f.Add(c.tool)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		tool, r := ValidateTool(raw)
		if (tool == nil) == (r == nil) {
			t.Fatalf("tool %v and refusal %v", tool, r)
		}
		if r != nil {
			if r.Refused == "" || r.Message == "" {
				t.Fatalf("incomplete refusal %+v", r)
			}
			return
		}
		// An accepted declaration is stable: its normalized form is
		// accepted again, to the same normalized form.
		again, r2 := ValidateTool(mustJSON(t, tool))
		if r2 != nil {
			t.Fatalf("normalized declaration refused: %v\n%s", r2, mustJSON(t, tool))
		}
		if !bytes.Equal(again.Parameters, tool.Parameters) {
			t.Fatalf("normalization not idempotent:\n%s\n%s", tool.Parameters, again.Parameters)
		}
		// and whatever its arguments, the validator neither panics nor
		// accepts what jsonschema/v5 refuses.
		for _, a := range []string{`{}`, `{"a":1}`, `{"a":"x","b":[1,2]}`} {
			if tool.ValidateArgs([]byte(a)) == nil {
				if err := tool.reference([]byte(a)); err != nil {
					t.Fatalf("accepted %s, jsonschema/v5 refuses: %v", a, err)
				}
			}
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hugeExponent matches numbers whose exponent would make big.Rat (inside
// jsonschema/v5) build astronomically large values.
var hugeExponent = regexp.MustCompile(`[eE][+-]?0*[0-9]{4,}`)

// documented differences: refusals where jsonschema/v5 (after Go's
// encoding/json) accepts, by design.
func documentedDifference(r *Refusal, raw []byte) bool {
	switch r.Refused {
	case CodeInvalidArgumentBounds: // depth/node bounds are ours
		return true
	case CodeInvalidToolArguments:
		// duplicate keys and invalid Unicode are refused (encoding/json
		// keeps the last key, replaces bad UTF-8/surrogates with U+FFFD);
		// size is bounded; anything else must be invalid JSON for
		// encoding/json as well.
		return r.Message == "duplicate key" || bytes.HasPrefix([]byte(r.Message), []byte("invalid Unicode")) || len(raw) > MaxArgsBytes
	case CodeInvalidArgument: // own __proto__ anywhere
		return r.Message == `own "__proto__" key is not allowed`
	case CodeInvalidArgumentRange: // numbers beyond a double
		return r.Message == "number is too large for a double"
	}
	return false
}

func FuzzValidateArgs(f *testing.F) {
	cases, tools := loadVectors(f)
	names := map[string]byte{"set_score": 0, "strings": 1, "enumLen": 2, "nums": 3, "bool": 4, "arr": 5, "closed": 6, "nested": 7, "open": 8, "proto": 9, "weird": 10}
	for _, c := range cases {
		if c.kind != "args" || len(c.args) > 4096 {
			continue
		}
		for n, i := range names {
			if bytes.Equal(tools[n], c.tool) {
				f.Add(i, c.args)
			}
		}
	}
	ts := seedTools(f)
	f.Fuzz(func(t *testing.T, which byte, raw []byte) {
		tool := ts[int(which)%len(ts)]
		r := tool.ValidateArgs(raw)
		if hugeExponent.Match(raw) {
			return // keep the reference validator out of bignum blow-ups
		}
		ref := tool.reference(raw)
		if r == nil {
			if ref != nil {
				t.Fatalf("accepted %q but jsonschema/v5 refuses: %v", raw, ref)
			}
			return
		}
		if r.Refused == "" || r.Message == "" {
			t.Fatalf("incomplete refusal %+v", r)
		}
		if ref == nil && !documentedDifference(r, raw) {
			t.Fatalf("refused %q (%s at %q: %s) but jsonschema/v5 accepts", raw, r.Refused, r.Path, r.Message)
		}
		var ve *jsonschema.ValidationError
		if ref != nil && !errors.As(ref, &ve) && r.Refused != CodeInvalidToolArguments && r.Refused != CodeInvalidArgumentBounds {
			t.Fatalf("%q is not JSON for encoding/json (%v) but we said %s", raw, ref, r.Refused)
		}
	})
}
