package author

import (
	"strings"
	"unicode"
)

// TitleFrom names an app from the description a person gave ("make me a chess clock with two players" →
// "Chess clock"): the request's words up to the first that starts a detail, without the asking. The name
// is only a first guess (it picks the slug at once, before the code model answers); the page's <title> is
// what the room shows.
func TitleFrom(description string) string {
	words := strings.FieldsFunc(strings.ToLower(description), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\''
	})
	asking := map[string]bool{"please": true, "can": true, "could": true, "would": true, "you": true, "make": true,
		"build": true, "create": true, "write": true, "give": true, "me": true, "us": true, "i": true, "want": true,
		"need": true, "like": true, "to": true, "have": true, "a": true, "an": true, "the": true, "new": true,
		"simple": true, "little": true, "small": true, "quick": true, "mini-app": true, "app": true, "some": true, "let's": true}
	detail := map[string]bool{"with": true, "that": true, "which": true, "for": true, "where": true, "and": true,
		"using": true, "in": true, "to": true, "so": true, "who": true, "showing": true, "on": true, "of": true}
	i := 0
	for i < len(words) && asking[words[i]] {
		i++
	}
	var kept []string
	for _, w := range words[i:] {
		if detail[w] || len(kept) == 4 {
			break
		}
		kept = append(kept, w)
	}
	if len(kept) == 0 {
		return "New app"
	}
	t := strings.Join(kept, " ")
	r := []rune(t)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
