package mcpclient

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestABoundedBodyStopsPastItsBound(t *testing.T) {
	for _, c := range []struct {
		body string
		ok   bool
	}{{"0123456789", true}, {"012345678", true}, {"0123456789x", false}, {strings.Repeat("y", 5000), false}} {
		b, err := io.ReadAll(&boundedBody{rc: io.NopCloser(strings.NewReader(c.body)), left: 10})
		switch {
		case c.ok && (err != nil || string(b) != c.body):
			t.Errorf("%d bytes: %q, %v", len(c.body), b, err)
		case !c.ok && !errors.Is(err, errTooLarge):
			t.Errorf("%d bytes over a bound of 10: %v", len(c.body), err)
		}
	}
}
