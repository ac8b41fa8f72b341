package sandbox

import "strings"

// ViewDomains are what an MCP Apps view may reach beyond itself (its _meta.ui.csp), after the person's
// consent for its server: backend/mcpclient's View.Granted keeps only what the server declared and the person
// allowed, so a view is never looser than its declaration (docs/mcp-apps.md, "CSP").
type ViewDomains struct {
	Connect  []string // fetch, XHR, WebSocket (connect-src)
	Resource []string // scripts, styles, images, fonts, media
	Frame    []string // nested frames (frame-src)
	BaseURI  []string // <base> (base-uri)
}

// ViewCSP is the policy of an MCP Apps view's document: the specification's restrictive default (scripts and
// styles of its own and inline, images and media of its own and data:, no connection), opened only by the
// granted domains, and Voicebox's own rules on top, as for any app: no WebRTC, objects, workers or forms that
// go anywhere; framed only by the bridge inside the room; sandboxed. appPath is the view's own path on the
// bridge origin, as an app's folder ("self" of an opaque-origin document names nothing, so the path does).
// Domains that are not https (wss for connections) origins, optionally with a "*." subdomain wildcard, are
// dropped: a server's metadata cannot add a keyword or a directive.
func ViewCSP(bridgeOrigin, roomOrigin, appPath string, granted ViewDomains) string {
	own := folderSource(bridgeOrigin, appPath)
	resource := viewSources(granted.Resource, "https")
	with := func(extra ...string) string {
		return strings.Join(append(append(extra, own...), resource...), " ")
	}
	base := viewSources(granted.BaseURI, "https")
	if len(base) == 0 {
		base = own
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + with("'unsafe-inline'"),
		"style-src " + with("'unsafe-inline'"),
		"img-src " + with("data:", "blob:"),
		"font-src " + with("data:"),
		"media-src " + with("data:", "blob:"),
		"connect-src " + sourcesOrNone(viewSources(granted.Connect, "https", "wss")),
		"frame-src " + sourcesOrNone(viewSources(granted.Frame, "https")),
		"worker-src 'none'",
		"manifest-src 'none'",
		"object-src 'none'",
		"child-src 'none'",
		"base-uri " + sourcesOrNone(base),
		"form-action 'none'",
		"frame-ancestors " + ancestors(bridgeOrigin, roomOrigin),
		"webrtc 'block'",
		"sandbox allow-scripts allow-forms",
	}, "; ")
}

// viewSources keeps the domains that are origins of one of schemes (scheme://host[:port], the host possibly
// "*."-prefixed), lower-cased and without a trailing slash, each once.
func viewSources(domains []string, schemes ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range domains {
		d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), "/")
		scheme, host, ok := strings.Cut(d, "://")
		if !ok || seen[d] || !validCDNHost(host) {
			continue
		}
		for _, s := range schemes {
			if scheme == s {
				seen[d] = true
				out = append(out, d)
				break
			}
		}
	}
	return out
}
