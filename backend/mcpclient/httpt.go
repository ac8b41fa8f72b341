package mcpclient

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTransport is a Streamable HTTP server's transport: the entry's headers on every request to its own
// host and nowhere else, no redirect followed (a header of credentials must not follow one), and a plain
// JSON answer bounded by MaxMessageBytes like a stdio frame or an SSE event.
func httpTransport(cfg Server) (*mcp.StreamableClientTransport, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, err
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	client := &http.Client{
		Transport: &headerTransport{host: u.Host, headers: cfg.Headers, base: base},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client, MaxEventSize: MaxMessageBytes}, nil
}

type headerTransport struct {
	host    string
	headers map[string]string
	base    http.RoundTripper
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 && req.URL.Host == t.host {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		resp.Body = &boundedBody{rc: resp.Body, left: MaxMessageBytes}
	}
	return resp, nil
}

// errTooLarge is a server's answer over MaxMessageBytes.
var errTooLarge = fmt.Errorf("the server's answer is over %d bytes", MaxMessageBytes)

type boundedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// one byte more tells a body of exactly the bound from a longer one
		var one [1]byte
		if n, err := b.rc.Read(one[:]); n > 0 {
			return 0, errTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *boundedBody) Close() error { return b.rc.Close() }

// isTooLarge reports an error that carries errTooLarge (through the SDK's wrapping, as text at worst).
func isTooLarge(err error) bool {
	return err != nil && (errors.Is(err, errTooLarge) || strings.Contains(err.Error(), errTooLarge.Error()))
}
