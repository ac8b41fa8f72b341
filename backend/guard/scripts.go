package guard

import (
	"embed"
	"encoding/json"
	"strings"
)

// The guard's JavaScript lives in .js files of its own (tested in guard.test.mjs with node, and in the
// window by desktop_test.go); the C half gets the scripts ready to run.
//
//go:embed forwarder.js page.js takemic.js
var scriptFiles embed.FS

// guardScripts are the scripts the guard gives WebKit for one room origin.
type guardScripts struct {
	forwarder string // the isolated world's document-start script (forwarder.js)
	page      string // the page world's document-start script (page.js)
	takeMic   string // the expression that asks the isolated world for the microphone (takemic.js)
}

func scriptsFor(roomOrigin string) guardScripts {
	mic := eventName + "-mic"
	return guardScripts{
		forwarder: applyJS(script("forwarder.js"), roomOrigin, eventName, mic),
		page:      applyJS(script("page.js"), roomOrigin, eventName, PageFlag, mic),
		takeMic:   script("takemic.js"),
	}
}

func script(name string) string {
	b, err := scriptFiles.ReadFile(name)
	if err != nil {
		panic(err) // the embed pattern above guarantees the file
	}
	return strings.TrimSpace(string(b))
}

// applyJS is a call of fn, the source of one function expression, with args as JSON strings (JSON is
// JavaScript: no argument can end its string early).
func applyJS(fn string, args ...string) string {
	b, _ := json.Marshal(args)
	return "(" + fn + "\n)(" + string(b[1:len(b)-1]) + ");\n"
}
