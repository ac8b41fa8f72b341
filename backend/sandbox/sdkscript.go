package sandbox

import (
	_ "embed"
	"strings"
)

// The SDK's sections (docs/webmcp.md): each file is one JavaScript function of the core's `sdk` object,
// passed to sdk.js in place of its [/*SECTIONS*/] placeholder. Every app gets the core and the
// capabilities; the declarative forms and the in-memory IndexedDB go only to a document whose HTML names
// them, so an app that uses neither carries neither.
var (
	//go:embed sdk-capabilities.js
	sdkCapabilities string
	//go:embed sdk-forms.js
	sdkForms string
	//go:embed sdk-idb.js
	sdkIndexedDB string
)

// sectionsSlot is where sdk.js takes its sections.
const sectionsSlot = "[/*SECTIONS*/]"

// optional sections and the word (any letter case) a document must contain to get each.
var optional = []struct{ word, source string }{
	{"toolname", sdkForms},
	{"indexeddb", sdkIndexedDB},
}

// SDKScript is the SDK with the given sections, as one script, without its comment lines and indentation.
func SDKScript(core string, sections ...string) string {
	return stripJS(strings.Replace(core, sectionsSlot, "["+strings.Join(sections, ",\n")+"]", 1))
}

// sdkVariants holds the SDK's <script> tag for every combination of optional sections, by bit mask.
type sdkVariants []string

// newSDKVariants builds them; prefix (the confinement, confine.js) goes first in every tag, before the SDK.
func newSDKVariants(prefix, core string) sdkVariants {
	v := make(sdkVariants, 1<<len(optional))
	for mask := range v {
		sections := []string{sdkCapabilities}
		for i, o := range optional {
			if mask&(1<<i) != 0 {
				sections = append(sections, o.source)
			}
		}
		v[mask] = "<script>" + prefix + SDKScript(core, sections...) + "</script>"
	}
	return v
}

// tagFor picks the SDK for an app's HTML.
func (v sdkVariants) tagFor(html string) string {
	mask := 0
	for i, o := range optional {
		if containsFold(html, o.word) {
			mask |= 1 << i
		}
	}
	return v[mask]
}

// containsFold reports whether s contains the lower-case ASCII word in any letter case.
func containsFold(s, word string) bool {
	first := word[0]
	for i := 0; i+len(word) <= len(s); i++ {
		if c := s[i] | 0x20; c == first && strings.EqualFold(s[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// stripJS drops the lines of our own scripts that are only comments (// … and /* … */ blocks that start a
// line) and every line's indentation. It is not a minifier: it relies on the SDK's style (no multi-line
// strings, block comments on lines of their own), which the tests check by parsing every variant.
func stripJS(src string) string {
	var b strings.Builder
	inBlock := false
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case inBlock:
			inBlock = !strings.Contains(t, "*/")
		case strings.HasPrefix(t, "/*"):
			inBlock = !strings.Contains(t, "*/")
		case t == "" || strings.HasPrefix(t, "//"):
		default:
			b.WriteString(t)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
