package mcpclient

import (
	"mime"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/voicebox/voicebox/backend/display"
	"github.com/voicebox/voicebox/backend/toolcontract"
)

// CSP is a view's _meta.ui.csp: the origins it asks to reach beyond the restrictive default, each list
// already through CleanOrigin.
type CSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
}

// Permissions is a view's _meta.ui.permissions: the browser features it asks for.
type Permissions struct {
	Camera         bool `json:"camera,omitempty"`
	Microphone     bool `json:"microphone,omitempty"`
	Geolocation    bool `json:"geolocation,omitempty"`
	ClipboardWrite bool `json:"clipboardWrite,omitempty"`
}

// View is a server's view as resources/read gave it: the HTML (from text, or base64 blob decoded) and what
// its _meta.ui asks for. Nothing here is granted: see Granted.
type View struct {
	Server   string `json:"server"`
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType"`
	HTML     string `json:"html"`
	// CSP is what the view declares (from the read content's _meta.ui, else from its resources/list entry).
	CSP         CSP         `json:"csp"`
	Permissions Permissions `json:"permissions"`
	// Domain is the dedicated origin the view asks for (host-dependent; Voicebox gives each view its own).
	Domain string `json:"domain,omitempty"`
	// PrefersBorder is nil when the server left it to the host.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
	// Dropped lists CSP entries that were not an origin CleanOrigin accepts (never put into a policy).
	Dropped []string `json:"dropped,omitempty"`
}

// Granted is what the view may have: each CSP list and permission it declares that the person's consent
// for its server also holds. With no consent it is nothing beyond the spec's restrictive default.
func (v *View) Granted(c *Consent) (CSP, Permissions) {
	if c == nil {
		return CSP{}, Permissions{}
	}
	both := func(declared, allowed []string) []string {
		var out []string
		for _, d := range declared {
			for _, a := range allowed {
				if o, ok := CleanOrigin(a); ok && o == d {
					out = append(out, d)
					break
				}
			}
		}
		return out
	}
	csp := CSP{ConnectDomains: both(v.CSP.ConnectDomains, c.ConnectDomains),
		ResourceDomains: both(v.CSP.ResourceDomains, c.ResourceDomains),
		FrameDomains:    both(v.CSP.FrameDomains, c.FrameDomains),
		BaseURIDomains:  both(v.CSP.BaseURIDomains, c.BaseURIDomains)}
	has := func(p string) bool { return slices.Contains(c.Permissions, p) }
	perm := Permissions{Camera: v.Permissions.Camera && has("camera"), Microphone: v.Permissions.Microphone && has("microphone"),
		Geolocation: v.Permissions.Geolocation && has("geolocation"), ClipboardWrite: v.Permissions.ClipboardWrite && has("clipboardWrite")}
	return csp, perm
}

// isViewType reports text/html with profile=mcp-app, however the parameters are spaced or cased.
func isViewType(t string) bool {
	mt, params, err := mime.ParseMediaType(t)
	return err == nil && mt == "text/html" && params["profile"] == "mcp-app"
}

// newView reads the view uri of server from a resources/read answer. listed is the _meta of the
// resource's resources/list entry (nil when unknown), used when the content carries no _meta.ui.
func newView(server, uri string, res *mcp.ReadResourceResult, listed mcp.Meta) (*View, *toolcontract.Refusal) {
	if res == nil || len(res.Contents) == 0 {
		return nil, refusal(CodeViewInvalid, "", "%s: resources/read returned no content", uri)
	}
	c := res.Contents[0]
	for _, x := range res.Contents {
		if x != nil && x.URI == uri {
			c = x
			break
		}
	}
	if c == nil {
		return nil, refusal(CodeViewInvalid, "", "%s: resources/read returned no content", uri)
	}
	if !isViewType(c.MIMEType) {
		return nil, refusal(CodeViewInvalid, "", "%s is %q, not %s", uri, display.Text(c.MIMEType, 100), ViewMIMEType)
	}
	html := c.Text
	if html == "" {
		if len(c.Blob) > MaxViewBytes {
			return nil, refusal(CodeViewTooLarge, "", "%s is %d bytes, over %d", uri, len(c.Blob), MaxViewBytes)
		}
		html = string(c.Blob)
	}
	switch {
	case len(html) > MaxViewBytes:
		return nil, refusal(CodeViewTooLarge, "", "%s is %d bytes, over %d", uri, len(html), MaxViewBytes)
	case strings.TrimSpace(html) == "":
		return nil, refusal(CodeViewInvalid, "", "%s has neither text nor blob", uri)
	}
	v := &View{Server: server, URI: uri, MIMEType: ViewMIMEType, HTML: html}
	ui, ok := c.Meta["ui"].(map[string]any)
	if !ok {
		ui, _ = listed["ui"].(map[string]any)
	}
	v.readUI(ui)
	return v, nil
}

func (v *View) readUI(ui map[string]any) {
	if ui == nil {
		return
	}
	if csp, ok := ui["csp"].(map[string]any); ok {
		list := func(key string) []string {
			raw, _ := csp[key].([]any)
			var in []string
			for _, x := range raw {
				if s, ok := x.(string); ok {
					in = append(in, s)
				}
			}
			kept, dropped := cleanOrigins(in)
			for _, d := range dropped {
				v.Dropped = append(v.Dropped, key+": "+display.Text(d, 200))
			}
			return kept
		}
		v.CSP = CSP{ConnectDomains: list("connectDomains"), ResourceDomains: list("resourceDomains"),
			FrameDomains: list("frameDomains"), BaseURIDomains: list("baseUriDomains")}
	}
	if p, ok := ui["permissions"].(map[string]any); ok {
		has := func(k string) bool { w, ok := p[k]; return ok && w != nil && w != false }
		v.Permissions = Permissions{Camera: has("camera"), Microphone: has("microphone"),
			Geolocation: has("geolocation"), ClipboardWrite: has("clipboardWrite")}
	}
	if d, ok := ui["domain"].(string); ok {
		v.Domain = display.Text(d, 253)
	}
	if b, ok := ui["prefersBorder"].(bool); ok {
		v.PrefersBorder = &b
	}
}
