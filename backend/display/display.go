// Package display makes text that comes from outside (a provider's error message, an MCP client's name)
// safe to show in the room: no control characters, no bidirectional overrides that would make it read
// differently than it is, valid UTF-8, and bounded without splitting a character.
package display

import (
	"strings"
	"unicode/utf8"
)

// Clean returns s with invalid UTF-8 replaced by U+FFFD, tabs and line breaks turned into spaces, and
// every other control character (C0, DEL, C1), bidirectional formatting character (U+061C, U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069) and byte order mark removed.
func Clean(s string) string {
	if !needsCleaning(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case hidden(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Cut returns s shortened to at most max bytes without splitting a character (max <= 0: no bound).
func Cut(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// Text is Clean, trimmed of surrounding spaces, then Cut to max bytes.
func Text(s string, max int) string {
	return Cut(strings.TrimSpace(Clean(s)), max)
}

func needsCleaning(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || r == '\u2028' || r == '\u2029' || hidden(r) {
			return true
		}
	}
	return false
}

// hidden reports a character that is removed: a control character, a bidirectional formatting character
// or a byte order mark.
func hidden(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case r == '\u061c' || r == '\u200e' || r == '\u200f' || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069':
		return true
	case r == '\ufeff':
		return true
	}
	return false
}
