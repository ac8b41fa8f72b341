package toolcontract

import "strconv"

// The checks of one scanned primitive value against its schema: a string's
// enum and length, a number's enum and bounds. They record a soft verdict
// (the first in document order wins) and never stop the walk.

func (v *validator) checkString(s *snode, body []byte, esc bool, runes int) {
	if v.soft != nil {
		return
	}
	if s.typ != kString {
		v.typeErr(s, "string")
		return
	}
	if s.hasEnum {
		str := body
		mark := len(v.arena)
		if esc {
			v.arena = appendUnescaped(v.arena, body)
			str = v.arena[mark:]
		}
		found := false
		for _, m := range s.enumStr {
			if m == string(str) {
				found = true
				break
			}
		}
		v.arena = v.arena[:mark]
		if !found {
			v.note(CodeInvalidArgumentEnum, "", "value is not one of the allowed values")
			return
		}
	}
	if s.minLen >= 0 && runes < s.minLen || s.maxLen >= 0 && runes > s.maxLen {
		v.note(CodeInvalidArgumentLength, "", "string length "+strconv.Itoa(runes)+" is outside "+lengthRange(s))
	}
}

func lengthRange(s *snode) string {
	lo, hi := "0", "∞"
	if s.minLen >= 0 {
		lo = strconv.Itoa(s.minLen)
	}
	if s.maxLen >= 0 {
		hi = strconv.Itoa(s.maxLen)
	}
	return "[" + lo + ", " + hi + "] code points"
}

func (v *validator) checkNumber(s *snode, text []byte) {
	if v.soft != nil {
		return
	}
	if s.typ != kNumber && s.typ != kInteger {
		v.typeErr(s, "number")
		return
	}
	n := parseNum(text)
	if s.typ == kInteger && !n.isInt() {
		v.typeErr(s, "a number with a fraction")
		return
	}
	if s.hasEnum {
		found := false
		for j := range s.enumNum {
			if cmpNum(&n, &s.enumNum[j]) == 0 {
				found = true
				break
			}
		}
		if !found {
			v.note(CodeInvalidArgumentEnum, "", "value is not one of the allowed values")
			return
		}
	}
	switch {
	case !n.finite():
		v.note(CodeInvalidArgumentRange, "", "number is too large for a double")
	case s.hasMin && cmpNum(&n, &s.min) < 0:
		v.note(CodeInvalidArgumentRange, "", "number is below the minimum "+string(s.min.b))
	case s.hasMax && cmpNum(&n, &s.max) > 0:
		v.note(CodeInvalidArgumentRange, "", "number is above the maximum "+string(s.max.b))
	}
}
