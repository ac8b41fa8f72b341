package mcpdoor

import (
	"net/http"
	"sync/atomic"
)

// BearerTransport is how an MCP client reaches this server over HTTP (the stdio forwarder, tests): it adds
// the token to every request and remembers a 401.
type BearerTransport struct {
	Token        string
	Base         http.RoundTripper // pooled when nil
	unauthorized atomic.Bool
}

// pooled is BearerTransport's default: http.DefaultTransport keeps 2 idle connections per host, so a client
// with many calls in flight (a forwarder's clients share one) would dial a new connection for most of them
// (docs/performance.md, "MCP calls").
var pooled = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 256
	return t
}()

// RoundTrip sends r with the bearer token.
func (b *BearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.Token)
	base := b.Base
	if base == nil {
		base = pooled
	}
	res, err := base.RoundTrip(r)
	if err == nil && res.StatusCode == http.StatusUnauthorized {
		b.unauthorized.Store(true)
	}
	return res, err
}

// Unauthorized reports whether the server refused the token (401) on any request so far.
func (b *BearerTransport) Unauthorized() bool { return b.unauthorized.Load() }
