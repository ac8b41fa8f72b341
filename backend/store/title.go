package store

import (
	"bytes"
	"html"
	"strings"
	"unicode/utf8"
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

func cleanTitle(t string) string {
	t = strings.Join(strings.Fields(html.UnescapeString(t)), " ")
	if !utf8.ValidString(t) {
		t = strings.ToValidUTF8(t, "\uFFFD")
	}
	if len(t) > maxTitleBytes {
		cut := maxTitleBytes
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = strings.TrimSpace(t[:cut])
	}
	return t
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
