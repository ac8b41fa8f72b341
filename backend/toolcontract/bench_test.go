package toolcontract

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// The scoreboard's set_score tool and one call to it, as raw bytes.
const benchSetScoreDecl = `{"name":"set_score","description":"Add points to a team on the scoreboard","parameters":{"type":"object","properties":{"team":{"type":"string","enum":["home","away"]},"points":{"type":"number","description":"Points to add"}},"required":["team","points"]}}`

var benchSetScoreArgs = []byte(`{"team":"home","points":3}`)

func benchTool(b *testing.B) *Tool {
	t, r := ValidateTool([]byte(benchSetScoreDecl))
	if r != nil {
		b.Fatal(r)
	}
	return t
}

// go test -run=^$ -bench=SetScore -benchmem ./backend/toolcontract

func BenchmarkValidateArgsSetScore(b *testing.B) {
	t := benchTool(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchSetScoreArgs)))
	for b.Loop() {
		if r := t.ValidateArgs(benchSetScoreArgs); r != nil {
			b.Fatal(r)
		}
	}
}

// BenchmarkJSONSchemaV5SetScore is jsonschema/v5 alone on the same input:
// decode (encoding/json, UseNumber, as jsonschema requires) + Validate.
func BenchmarkJSONSchemaV5SetScore(b *testing.B) {
	s, err := benchTool(b).compiled()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(benchSetScoreArgs)))
	for b.Loop() {
		dec := json.NewDecoder(bytes.NewReader(benchSetScoreArgs))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			b.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSetScoreRatio prints both figures and their ratio:
// VOICEBOX_BENCH_RATIO=1 go test -run=SetScoreRatio -v ./backend/toolcontract
func TestSetScoreRatio(t *testing.T) {
	logRatio(t, "ours", BenchmarkValidateArgsSetScore, "jsonschema/v5", BenchmarkJSONSchemaV5SetScore)
}

// logRatio runs a benchmark beside its baseline, in the same run, and prints both and their ratio.
func logRatio(t *testing.T, name string, bench func(*testing.B), baseName string, base func(*testing.B)) {
	if os.Getenv("VOICEBOX_BENCH_RATIO") == "" {
		t.Skip("set VOICEBOX_BENCH_RATIO=1 to measure")
	}
	ours := testing.Benchmark(bench)
	ref := testing.Benchmark(base)
	t.Logf("%-22s %s %s", name+":", ours, ours.MemString())
	t.Logf("%-22s %s %s", baseName+":", ref, ref.MemString())
	t.Logf("ratio: %s is %.1fx faster than %s", name, float64(ref.NsPerOp())/float64(ours.NsPerOp()), baseName)
}

// BenchmarkRegisterTool is one tool's registration: the declaration checked, normalized and checked
// against the meta-schema (ValidateTool).
func BenchmarkRegisterTool(b *testing.B) {
	raw := []byte(benchSetScoreDecl)
	b.ReportAllocs()
	for b.Loop() {
		if _, r := ValidateTool(raw); r != nil {
			b.Fatal(r)
		}
	}
}

// BenchmarkRegisterToolCompiled is the registration as it was before issue 12: ValidateTool plus a
// jsonschema/v5 compilation of every tool's schema, which only tests read.
func BenchmarkRegisterToolCompiled(b *testing.B) {
	raw := []byte(benchSetScoreDecl)
	b.ReportAllocs()
	for b.Loop() {
		t, r := ValidateTool(raw)
		if r != nil {
			b.Fatal(r)
		}
		if _, err := compileSchema(t.Parameters); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRegisterRatio prints both registration figures and their ratio:
// VOICEBOX_BENCH_RATIO=1 go test -run=RegisterRatio -v ./backend/toolcontract
func TestRegisterRatio(t *testing.T) {
	logRatio(t, "register", BenchmarkRegisterTool, "register+compile", BenchmarkRegisterToolCompiled)
}

// A refusal allocates only the Refusal and its path and message.
func BenchmarkValidateArgsSetScoreRefused(b *testing.B) {
	t := benchTool(b)
	raw := []byte(`{"team":"visitors","points":3}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := t.ValidateArgs(raw); r == nil {
			b.Fatal("accepted")
		}
	}
}

func TestValidateArgsDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race sync.Pool drops items at random; `make test` runs this test again without -race")
	}
	tool, _ := ValidateTool([]byte(benchSetScoreDecl))
	tool.ValidateArgs(benchSetScoreArgs) // warm the pool
	if n := testing.AllocsPerRun(200, func() { tool.ValidateArgs(benchSetScoreArgs) }); n > 0 {
		t.Errorf("ValidateArgs allocates %.1f times per call", n)
	}
	busy := []byte(`{"te\u0061m":"h\u006fme","points":-1.5e1,"x":[true,null,{"a":false,"b":"\ud83d\ude00"}],"y":{"z":[]}}`)
	if r := tool.ValidateArgs(busy); r != nil {
		t.Fatal(r)
	}
	if n := testing.AllocsPerRun(200, func() { tool.ValidateArgs(busy) }); n > 0 {
		t.Errorf("ValidateArgs allocates %.1f times per call on escapes and literals", n)
	}
}
