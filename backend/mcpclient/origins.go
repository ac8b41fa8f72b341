package mcpclient

import (
	"strconv"
	"strings"
)

// CleanOrigin checks one CSP domain as a view's _meta.ui.csp or a consent lists it: scheme://host[:port]
// with scheme http, https, ws or wss, a host of letters, digits, '-' and '.', optionally "*." in front (a
// wildcard subdomain, as the spec allows), or an IPv4 address or a bracketed IPv6 address, and at most a
// trailing "/". It returns the origin in lower case without the slash, or ok false.
//
// Whatever passes can be put into a Content-Security-Policy source list as it is: no spaces, quotes,
// semicolons or commas can reach it (docs/mcp-apps.md, "Views").
func CleanOrigin(s string) (origin string, ok bool) {
	if len(s) > 255 {
		return "", false
	}
	s = strings.ToLower(strings.TrimSuffix(s, "/"))
	scheme, rest, found := strings.Cut(s, "://")
	if !found {
		return "", false
	}
	switch scheme {
	case "http", "https", "ws", "wss":
	default:
		return "", false
	}
	host, port := rest, ""
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 || !ipv6Like(rest[1:end]) {
			return "", false
		}
		host, port = rest[:end+1], rest[end+1:]
		if port != "" && !strings.HasPrefix(port, ":") {
			return "", false
		}
		port = strings.TrimPrefix(port, ":")
	} else if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		host, port = rest[:i], rest[i+1:]
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return "", false
		}
	}
	if !strings.HasPrefix(host, "[") && !hostName(strings.TrimPrefix(host, "*.")) {
		return "", false
	}
	return s, true
}

// hostName reports a DNS name (or IPv4 address) of labels [a-z0-9-], none empty, none starting or ending
// with '-'.
func hostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func ipv6Like(h string) bool {
	if h == "" || len(h) > 45 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == ':' || c == '.') {
			return false
		}
	}
	return true
}

// cleanOrigins keeps the entries of list that CleanOrigin accepts (at most MaxDomains, duplicates once)
// and returns the others as dropped.
func cleanOrigins(list []string) (kept, dropped []string) {
	seen := map[string]bool{}
	for _, d := range list {
		o, ok := CleanOrigin(d)
		switch {
		case !ok || len(kept) >= MaxDomains:
			dropped = append(dropped, d)
		case !seen[o]:
			seen[o] = true
			kept = append(kept, o)
		}
	}
	return kept, dropped
}
