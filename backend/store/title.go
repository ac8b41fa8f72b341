package store

import (
	"bytes"
	"html"
	"strings"

	"github.com/voicebox/voicebox/backend/display"
)

// extractTitle returns the text of the first <title> element (entities
// decoded, whitespace collapsed, at most maxTitleBytes), or "".
func extractTitle(b []byte) string {
	i := indexFold(b, []byte("<title"))
	for i >= 0 {
		rest := b[i+6:]
		if len(rest) > 0 && (rest[0] == '>' || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r' || rest[0] == '/') {
			break
		}
		j := indexFold(rest, []byte("<title"))
		if j < 0 {
			return ""
		}
		i = i + 6 + j
	}
	if i < 0 {
		return ""
	}
	rest := b[i+6:]
	gt := bytes.IndexByte(rest, '>')
	if gt < 0 {
		return ""
	}
	rest = rest[gt+1:]
	end := indexFold(rest, []byte("</title"))
	if end < 0 {
		return ""
	}
	return cleanTitle(string(rest[:end]))
}

func cleanTitle(t string) string { return displayTitle(html.UnescapeString(t)) }

// displayTitle is a title as the room, the tray and tool listings show it: no control or bidirectional
// formatting character (display.Clean: U+202E cannot make a title read backwards), white space collapsed,
// at most maxTitleBytes without splitting a character. Every title the store hands out goes through it:
// a page's <title>, a file name standing in for one, a shelf record's.
func displayTitle(t string) string {
	return strings.TrimSpace(display.Cut(strings.Join(strings.Fields(display.Clean(t)), " "), maxTitleBytes))
}

// indexFold is an ASCII case-insensitive bytes.Index for a lower-case
// pattern that starts with '<'.
func indexFold(b, pat []byte) int {
	off := 0
	for {
		i := bytes.IndexByte(b[off:], '<')
		if i < 0 {
			return -1
		}
		i += off
		if len(b)-i < len(pat) {
			return -1
		}
		ok := true
		for k := 1; k < len(pat); k++ {
			c := b[i+k]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != pat[k] {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
		off = i + 1
	}
}
