package toolcontract

// num is a JSON number's text viewed as an exact decimal, without
// allocating. Its value is 0.d1d2…dn × 10^exp where d1 ≠ 0 are the
// significant digits (n == 0 means zero).
type num struct {
	b        []byte
	neg      bool
	ip0, ip1 int // integer digits b[ip0:ip1]
	fp0, fp1 int // fraction digits b[fp0:fp1]
	s0, s1   int // significant digits, as virtual indexes into int++frac
	exp      int64
}

const expClamp = 1 << 40

// parseNum reads a number that already passed the JSON number grammar.
func parseNum(b []byte) num {
	n := num{b: b}
	i := 0
	if i < len(b) && b[i] == '-' {
		n.neg = true
		i++
	}
	n.ip0 = i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	n.ip1 = i
	n.fp0, n.fp1 = i, i
	if i < len(b) && b[i] == '.' {
		i++
		n.fp0 = i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		n.fp1 = i
	}
	var e int64
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		for ; i < len(b); i++ {
			if e < expClamp {
				e = e*10 + int64(b[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
	}
	total := (n.ip1 - n.ip0) + (n.fp1 - n.fp0)
	n.s0, n.s1 = 0, total
	for n.s0 < total && n.digit(n.s0) == '0' {
		n.s0++
	}
	for n.s1 > n.s0 && n.digit(n.s1-1) == '0' {
		n.s1--
	}
	if n.s0 < n.s1 {
		n.exp = int64(n.ip1-n.ip0-n.s0) + e
	}
	return n
}

// digit returns the j-th digit of the virtual string int++frac.
func (n *num) digit(j int) byte {
	il := n.ip1 - n.ip0
	if j < il {
		return n.b[n.ip0+j]
	}
	return n.b[n.fp0+j-il]
}

func (n *num) isZero() bool { return n.s0 >= n.s1 }

// isInt reports whether the value has no fractional part (2.0 and 1e2 are
// integers, 1.5 is not).
func (n *num) isInt() bool {
	return n.isZero() || int64(n.s1-n.s0) <= n.exp
}

// cmpNum compares two numbers exactly: -1, 0 or +1.
func cmpNum(a, b *num) int {
	az, bz := a.isZero(), b.isZero()
	switch {
	case az && bz:
		return 0
	case az:
		if b.neg {
			return 1
		}
		return -1
	case bz:
		if a.neg {
			return -1
		}
		return 1
	}
	if a.neg != b.neg {
		if a.neg {
			return -1
		}
		return 1
	}
	c := cmpAbs(a, b)
	if a.neg {
		return -c
	}
	return c
}

func cmpAbs(a, b *num) int {
	if a.exp != b.exp {
		if a.exp < b.exp {
			return -1
		}
		return 1
	}
	la, lb := a.s1-a.s0, b.s1-b.s0
	for j := 0; j < la || j < lb; j++ {
		var da, db byte = '0', '0'
		if j < la {
			da = a.digit(a.s0 + j)
		}
		if j < lb {
			db = b.digit(b.s0 + j)
		}
		if da != db {
			if da < db {
				return -1
			}
			return 1
		}
	}
	return 0
}

// maxFinite is the smallest decimal that rounds to +Inf as a double
// (2^1024 − 2^970, the half-way point above the largest finite double).
var maxFinite = parseNum([]byte("179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"))

// finite reports whether the number rounds to a finite double (what a
// JavaScript JSON.parse would produce); 1e400 does not.
func (n *num) finite() bool {
	if n.isZero() || n.exp < 309 {
		return true
	}
	if n.exp > 309 {
		return false
	}
	return cmpAbs(n, &maxFinite) < 0
}
