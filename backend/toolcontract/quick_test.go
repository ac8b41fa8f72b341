package toolcontract

import "testing"

const setScore = `{"name":"set_score","description":"Add points to a team on the scoreboard","parameters":{"type":"object","properties":{"team":{"type":"string","enum":["home","away"]},"points":{"type":"number","description":"Points to add"}},"required":["team","points"]}}`

func TestQuick(t *testing.T) {
	tool, r := ValidateTool([]byte(setScore))
	if r != nil {
		t.Fatal(r)
	}
	t.Logf("%s", tool.Parameters)
	for _, a := range []string{`{"team":"home","points":3}`, `{"team":"h\u006fme","points":3}`, `{"team":"x","points":3}`, `{"team":"home"}`, `{"team":"home","points":"3"}`, `{"team":"home","points":3,"team":"away"}`, `{"__proto__":1,"team":"home","points":3}`, `{"team":"home","points":1e400}`, `[]`, `{"a":`} {
		t.Logf("%s → %+v ref=%v", a, tool.ValidateArgs([]byte(a)), tool.reference([]byte(a)))
	}
}

func BenchmarkQuick(b *testing.B) {
	tool, _ := ValidateTool([]byte(setScore))
	raw := []byte(`{"team":"home","points":3}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r := tool.ValidateArgs(raw); r != nil {
			b.Fatal(r)
		}
	}
}
