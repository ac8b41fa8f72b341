package toolcontract

import "encoding/json"

// Annotations are a declaration's hints about its tool (WebMCP's annotations, which MCP's tool annotations
// share): a model may, say, call a read-only tool more freely. They are kept so that they reach the models
// (docs/webmcp.md) and change no check. Only these hints survive normalization; each present hint becomes a
// boolean the way the browser converts it (false, 0, "" and null are false, anything else true), and any
// other key is dropped. An annotations value that is not an object is ignored, never refused.
type Annotations struct {
	ReadOnlyHint         *bool `json:"readOnlyHint,omitempty"`
	DestructiveHint      *bool `json:"destructiveHint,omitempty"`
	IdempotentHint       *bool `json:"idempotentHint,omitempty"`
	OpenWorldHint        *bool `json:"openWorldHint,omitempty"`
	UntrustedContentHint *bool `json:"untrustedContentHint,omitempty"`
}

// ReadOnly reports whether the tool says it changes nothing.
func (a *Annotations) ReadOnly() bool { return a != nil && a.ReadOnlyHint != nil && *a.ReadOnlyHint }

// JSON is the normalized annotations as JSON text ("" when there are none).
func (a *Annotations) JSON() string {
	if a == nil {
		return ""
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// annotationsOf normalizes a declaration's annotations value (nil when it has no hint we keep).
func annotationsOf(v *jval) *Annotations {
	if v == nil || v.k != jObj {
		return nil
	}
	var a Annotations
	found := false
	for _, h := range []struct {
		key string
		dst **bool
	}{
		{"readOnlyHint", &a.ReadOnlyHint}, {"destructiveHint", &a.DestructiveHint}, {"idempotentHint", &a.IdempotentHint},
		{"openWorldHint", &a.OpenWorldHint}, {"untrustedContentHint", &a.UntrustedContentHint},
	} {
		if x := v.get(h.key); x != nil {
			b := truthy(x)
			*h.dst = &b
			found = true
		}
	}
	if !found {
		return nil
	}
	return &a
}

// truthy is JavaScript's ToBoolean for a JSON value.
func truthy(v *jval) bool {
	switch v.k {
	case jNull:
		return false
	case jBool:
		return v.b
	case jStr:
		return v.s != ""
	case jNum:
		f, ok := v.float()
		return ok && f != 0
	}
	return true
}
