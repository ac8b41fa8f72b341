package sandbox

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// InjectSDK puts the SDK script into an app's HTML without changing its rendering mode: right after a
// leading <!doctype …> (which may follow a byte order mark, white space and comments, as HTML allows), or
// at the very start when there is none (such a document is in quirks mode either way). Adding a doctype
// would switch a quirks page to standards mode; putting anything before the doctype would switch a
// standards page to quirks mode.
func InjectSDK(html string, sdkTag string) string {
	i := 0
	if strings.HasPrefix(html, "\ufeff") {
		i = len("\ufeff")
	}
	start := i
	for {
		for i < len(html) && isHTMLSpace(html[i]) {
			i++
		}
		if strings.HasPrefix(html[i:], "<!--") {
			end := strings.Index(html[i+4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		break
	}
	if len(html)-i >= 9 && strings.EqualFold(html[i:i+9], "<!doctype") {
		if end := strings.IndexByte(html[i:], '>'); end >= 0 {
			at := i + end + 1
			return html[:at] + sdkTag + html[at:]
		}
	}
	return html[:start] + sdkTag + html[start:]
}

func isHTMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// AppDocument is what the asset server sends for an app's HTML: the document decoded to UTF-8 when it
// starts with a UTF-16 byte order mark, its declarative shadow roots disarmed, and the confinement and the
// SDK (tag) injected; with the Content-Type to send it under.
//
// Why the encoding matters: the disarming below works on bytes, so the browser must read the same bytes as
// text. A UTF-16 BOM overrides any charset a header names, so such a page is re-encoded here; a page that
// is not UTF-8 and holds an ESC byte could switch to ISO-2022-JP (the one stateful encoding a page may pick)
// and hide an attribute name in escape sequences, so it is read as windows-1252, where each byte is a
// character. Any other page keeps its own encoding.
func AppDocument(html, tag string) (body, contentType string) {
	html = fromUTF16(html)
	contentType = "text/html"
	switch {
	case utf8.ValidString(html):
		contentType = "text/html; charset=utf-8"
	case strings.IndexByte(html, 0x1b) >= 0:
		contentType = "text/html; charset=windows-1252"
	}
	return InjectSDK(DisarmDeclarativeShadowRoots(html), tag), contentType
}

// DisarmDeclarativeShadowRoots renames every shadowrootmode attribute in a tag to
// data-voicebox-off-shadowrootmode, so a <template shadowrootmode> stays an inert template. A declarative
// shadow root is made by the HTML parser without attachShadow, so the confinement (confine.js) could not
// see a frame inside a closed one. The match is by context, not by parsing: the name must stand where an
// attribute name can (after white space, "/" or a quote; before "=", white space, ">", "/" or the end),
// so a script that mentions template.shadowRootMode is left alone.
func DisarmDeclarativeShadowRoots(html string) string {
	const name = "shadowrootmode"
	low := asciiLower(html) // same byte offsets as html (HTML attribute names are ASCII-case-insensitive)
	if !strings.Contains(low, name) {
		return html
	}
	var b strings.Builder
	last := 0
	for i := 0; ; {
		j := strings.Index(low[i:], name)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(name)
		if at > 0 && strings.IndexByte(" \t\n\r\f/\"'", html[at-1]) >= 0 && (end == len(html) || strings.IndexByte("= \t\n\r\f>/", html[end]) >= 0) {
			b.WriteString(html[last:at])
			b.WriteString("data-voicebox-off-")
			last = at
		}
		i = end
	}
	if last == 0 {
		return html
	}
	b.WriteString(html[last:])
	return b.String()
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// fromUTF16 re-encodes a document that starts with a UTF-16 byte order mark as UTF-8 (without the mark).
func fromUTF16(s string) string {
	if len(s) < 2 {
		return s
	}
	var order binary.ByteOrder
	switch {
	case s[0] == 0xfe && s[1] == 0xff:
		order = binary.BigEndian
	case s[0] == 0xff && s[1] == 0xfe:
		order = binary.LittleEndian
	default:
		return s
	}
	units := make([]uint16, 0, (len(s)-2)/2)
	for i := 2; i+1 < len(s); i += 2 {
		units = append(units, order.Uint16([]byte(s[i:i+2])))
	}
	return string(utf16.Decode(units))
}
