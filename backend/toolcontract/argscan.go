package toolcontract

import "unicode/utf8"

// Byte-level scanning of raw arguments: the depth and node prescan that runs
// before anything is parsed, and the string and number lexers the validator
// walks with.

// prescan enforces the argument depth and node bounds with a cheap byte
// scanner, before anything is parsed. toolcontract.js counts identically
// (over UTF-16 code units, which give the same result: every byte it looks
// at is ASCII).
//
// Outside string literals:
//
//   - '{' or '[' opens a level and is one node; '}' or ']' closes a level.
//     The level of a container is the number of containers enclosing it plus
//     one: {} is 1 level deep, {"a":[{}]} is 3. More than MaxArgsDepth (32)
//     open levels at any point → invalid-argument-bounds.
//   - a string literal (from '"' to the next '"' not escaped by '\') is one
//     node unless the next byte after it, skipping JSON whitespace, is ':'
//     (then it is an object key, not a node).
//   - a byte among - 0-9 t f n starts a scalar node (number, true, false,
//     null), which extends to the next byte among , ] } : " { [ or JSON
//     whitespace.
//
// So every JSON value is one node and keys are not: {"a":[1,2]} has 4 nodes.
// More than MaxArgsNodes (2048) nodes → invalid-argument-bounds. Other bytes
// are ignored here (they are refused later as invalid JSON).
func prescan(b []byte) *Refusal {
	depth, nodes := 0, 0
	node := func() *Refusal {
		nodes++
		if nodes > MaxArgsNodes {
			return refuse(CodeInvalidArgumentBounds, "", "arguments have more than %d nodes", MaxArgsNodes)
		}
		return nil
	}
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '{', '[':
			depth++
			if depth > MaxArgsDepth {
				return refuse(CodeInvalidArgumentBounds, "", "arguments are nested deeper than %d levels", MaxArgsDepth)
			}
			if r := node(); r != nil {
				return r
			}
			i++
		case '}', ']':
			depth--
			i++
		case '"':
			i++
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			i++
			k := i
			for k < len(b) && isSpace(b[k]) {
				k++
			}
			if k < len(b) && b[k] == ':' {
				continue
			}
			if r := node(); r != nil {
				return r
			}
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 't', 'f', 'n':
			if r := node(); r != nil {
				return r
			}
			i++
			for i < len(b) && !isDelim(b[i]) {
				i++
			}
		default:
			i++
		}
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDelim(c byte) bool {
	switch c {
	case ',', ']', '}', ':', '"', '{', '[', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func hexVal(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// scanString scans a string literal at v.i (on '"'), leaving v.i after the
// closing quote. It counts Unicode code points (a surrogate-pair escape is
// one) and refuses control characters, bad escapes, unpaired surrogates and
// invalid UTF-8.
func (v *validator) scanString() (esc bool, runes int, ok bool) {
	b := v.b
	i := v.i + 1
	for {
		if i >= len(b) {
			return false, 0, v.fail("invalid JSON: unterminated string")
		}
		c := b[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return false, 0, v.fail("invalid JSON: control character in string")
		}
		if c < utf8.RuneSelf && c != '\\' {
			i++
			runes++
			continue
		}
		if c == '\\' {
			esc = true
			if i+1 >= len(b) {
				return false, 0, v.fail("invalid JSON: unterminated string")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				r, okh := hexVal(b[i+2:])
				if !okh {
					return false, 0, v.fail(`invalid JSON: bad \u escape`)
				}
				i += 6
				if r >= 0xDC00 && r <= 0xDFFF {
					return false, 0, v.fail("invalid Unicode: unpaired surrogate")
				}
				if r >= 0xD800 && r <= 0xDBFF {
					if i+1 >= len(b) || b[i] != '\\' || b[i+1] != 'u' {
						return false, 0, v.fail("invalid Unicode: unpaired surrogate")
					}
					lo, okl := hexVal(b[i+2:])
					if !okl || lo < 0xDC00 || lo > 0xDFFF {
						return false, 0, v.fail("invalid Unicode: unpaired surrogate")
					}
					i += 6
				}
			default:
				return false, 0, v.fail("invalid JSON: bad escape")
			}
			runes++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return false, 0, v.fail("invalid Unicode: invalid UTF-8")
		}
		i += size
		runes++
	}
	v.i = i + 1
	return esc, runes, true
}

// appendUnescaped decodes a validated string body.
func appendUnescaped(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hexVal(s[i+2:])
			i += 6
			if r >= 0xD800 && r <= 0xDBFF {
				lo, _ := hexVal(s[i+2:])
				r = (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			dst = append(dst, s[i+1])
		}
		i += 2
	}
	return dst
}

func (v *validator) scanNumber() bool {
	b, i := v.b, v.i
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return v.fail("invalid JSON: bad number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return v.fail("invalid JSON: bad number")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return v.fail("invalid JSON: bad number")
		}
	}
	v.i = i
	return true
}
