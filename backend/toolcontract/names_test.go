package toolcontract

import (
	"fmt"
	"strings"
	"testing"
)

func echoApp(appID string) AppTools {
	return AppTools{AppID: appID, Slug: "echo", Tools: []*Tool{{Name: "echo"}}}
}

// Issue 11, finding 4: an exposed name stays with the app that got it; a newcomer with the same slug gets
// the suffix, before and after the holder closes.
func TestNamerKeepsANameWithItsApp(t *testing.T) {
	victim, newcomer, third := Exposed{"page_echo", "echo"}, Exposed{"app_echo", "echo"}, Exposed{"doc_echo", "echo"}
	n := NewNamer()
	if got := n.Assign([]AppTools{echoApp("page_echo")}); got[victim] != "echo__echo" {
		t.Fatalf("first holder named %v", got)
	}
	// The newcomer sorts first, so naming the two afresh would give it echo__echo.
	both := n.Assign([]AppTools{echoApp("app_echo"), echoApp("page_echo")})
	if both[victim] != "echo__echo" || !strings.HasPrefix(both[newcomer], "echo__echo_") || len(both) != 2 {
		t.Fatalf("after the newcomer: %v", both)
	}
	suffixed := both[newcomer]
	// The holder closes: nobody else gets its name, and the newcomer keeps its own.
	if got := n.Assign([]AppTools{echoApp("app_echo")}); got[newcomer] != suffixed || len(got) != 1 {
		t.Fatalf("after the holder closed: %v", got)
	}
	got := n.Assign([]AppTools{echoApp("app_echo"), echoApp("doc_echo")})
	if got[third] == "echo__echo" || got[third] == suffixed || !strings.HasPrefix(got[third], "echo__echo_") {
		t.Fatalf("a third app with the slug took a held name: %v", got)
	}
	// The holder opens again and finds its name.
	if got := n.Assign([]AppTools{echoApp("page_echo"), echoApp("app_echo")}); got[victim] != "echo__echo" || got[newcomer] != suffixed {
		t.Fatalf("the holder reopened: %v", got)
	}
	// A fresh Namer names in (AppID, tool) order: the same apps in any order get the same names.
	fresh := NewNamer().Assign([]AppTools{echoApp("page_echo"), echoApp("app_echo")})
	again := NewNamer().Assign([]AppTools{echoApp("app_echo"), echoApp("page_echo")})
	if fresh[newcomer] != "echo__echo" || fresh[victim] != again[victim] || fresh[newcomer] != again[newcomer] {
		t.Fatalf("fresh namers: %v, %v", fresh, again)
	}
}

// A tool the app withdrew keeps its name while the app stays open.
func TestNamerKeepsAWithdrawnToolsName(t *testing.T) {
	n := NewNamer()
	n.Assign([]AppTools{echoApp("page_echo")})
	n.Assign([]AppTools{{AppID: "page_echo", Slug: "echo"}})
	if got := n.Assign([]AppTools{{AppID: "page_echo", Slug: "echo"}, echoApp("app_echo")}); got[Exposed{"app_echo", "echo"}] == "echo__echo" {
		t.Fatalf("a withdrawn tool's name went to another app: %v", got)
	}
}

// Memory is bounded: past MaxIdleNames idle names, the oldest idle name is forgotten (and may be given
// again); the names of open tools never are.
func TestNamerForgetsTheOldestIdleNames(t *testing.T) {
	n := NewNamer()
	keep := AppTools{AppID: "app_keep", Slug: "keep", Tools: []*Tool{{Name: "t"}}}
	n.Assign([]AppTools{keep, echoApp("page_echo")})
	for i := 0; i < MaxIdleNames; i++ {
		n.Assign([]AppTools{keep, {AppID: fmt.Sprintf("app_%d", i), Tools: []*Tool{{Name: "t"}}}})
	}
	// page_echo went idle first, then app_0 … app_1022 (1,024 idle names, within the bound). Here app_1023
	// goes idle too: new tools are named before the oldest idle name is forgotten.
	if got := n.Assign([]AppTools{keep, echoApp("app_echo")}); got[Exposed{"app_echo", "echo"}] == "echo__echo" {
		t.Fatalf("an idle name was forgotten within the bound: %v", got)
	}
	// page_echo's name, idle longest, was forgotten: it may be given again.
	got := n.Assign([]AppTools{keep, echoApp("doc_echo")})
	if got[Exposed{"doc_echo", "echo"}] != "echo__echo" || got[Exposed{"app_keep", "t"}] != "keep__t" {
		t.Fatalf("after the bound: %v", got)
	}
	if len(n.idle) > MaxIdleNames || len(n.name) != len(n.holder) {
		t.Fatalf("%d idle, %d names, %d holders", len(n.idle), len(n.name), len(n.holder))
	}
}
