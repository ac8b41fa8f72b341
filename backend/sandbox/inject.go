package sandbox

import "strings"

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
