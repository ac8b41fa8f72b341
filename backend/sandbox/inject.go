package sandbox

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// InjectSDK puts the SDK script (the confinement first, then the SDK) before every byte of an app's HTML
// that could make an element, so that no script of the page runs before it, however the page spells its
// prolog (docs/sandbox.md, "Where the confinement goes"). Only a byte order mark, white space and one
// doctype may stand before the tag: the page's own leading doctype, so that the page keeps its rendering
// mode (a doctype added would switch a quirks page to standards mode; anything but white space and
// comments before the doctype switches a standards page to quirks mode).
//
// The page's leading doctype is found by golang.org/x/net/html's tokenizer, which follows the WHATWG
// tokenizer (every way a comment ends: "-->", "--!>", "<!-->", "<!--->", bogus "<!x>", "<?x>", "</ x>").
// When the page opens with white space and that doctype, the tag goes right after it. When comments or
// anything else come first, the tag goes at the very start, after a copy of the page's doctype: the page
// follows whole, its own doctype, later, is a parse error the browser ignores. So the position of the tag
// never depends on where the browser ends a comment; a tokenizer that disagreed with a browser could only
// change the page's rendering mode. A doctype is copied only when the browser cannot read it otherwise:
// it starts "<!doctype", in any letter case, and ends at its only ">" (every doctype state of the tokenizer
// ends at the first ">").
func InjectSDK(page string, sdkTag string) string {
	bom := ""
	if strings.HasPrefix(page, "\ufeff") {
		bom, page = "\ufeff", page[len("\ufeff"):]
	}
	doctype, at, first := leadingDoctype(page)
	switch {
	case doctype == "":
		return bom + sdkTag + page
	case first:
		return bom + page[:at] + sdkTag + page[at:]
	default:
		return bom + doctype + sdkTag + page
	}
}

// leadingDoctype returns the doctype that decides the page's rendering mode: the first token that is not
// white space, NUL or a comment, when it is a doctype the browser reads as one token ("" otherwise), the byte
// offset just past it, and whether only white space precedes it.
func leadingDoctype(page string) (doctype string, end int, first bool) {
	z := html.NewTokenizer(strings.NewReader(page))
	first = true
	for pos := 0; ; {
		tt := z.Next()
		raw := z.Raw()
		switch tt {
		case html.CommentToken:
			first = false
		case html.TextToken:
			// White space is ignored before the doctype. So is NUL in Chromium and WebKit, whose tokenizers
			// skip it in the data state (the WHATWG tree builder would make the page quirky); the tag then
			// goes first, after a copy of the doctype, so that only white space ever precedes a doctype.
			if strings.Trim(string(raw), " \t\n\r\f\x00") != "" {
				return "", 0, false
			}
			first = first && strings.IndexByte(string(raw), 0) < 0
		case html.DoctypeToken:
			d := string(raw)
			if len(d) < len("<!doctype>") || !strings.EqualFold(d[:len("<!doctype")], "<!doctype") ||
				strings.IndexByte(d, '>') != len(d)-1 || pos+len(d) > len(page) || page[pos:pos+len(d)] != d {
				return "", 0, false
			}
			return d, pos + len(d), first
		default: // an element, an end tag or the end of the page
			return "", 0, false
		}
		pos += len(raw)
	}
}

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
