package toolcontract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compiledRefs caches each tool's jsonschema/v5 compilation (the reference the tests compare with; the
// registration path never compiles schemas).
var compiledRefs sync.Map // *Tool → *jsonschema.Schema

// compiled is the jsonschema/v5 compilation of the tool's normalized schema.
func (t *Tool) compiled() (*jsonschema.Schema, error) {
	if s, ok := compiledRefs.Load(t); ok {
		return s.(*jsonschema.Schema), nil
	}
	s, err := compileSchema(t.Parameters)
	if err != nil {
		return nil, err
	}
	compiledRefs.Store(t, s)
	return s, nil
}

func compileSchema(norm []byte) (*jsonschema.Schema, error) {
	c := newCompiler()
	const url = "urn:voicebox:toolcontract:tool"
	if err := c.AddResource(url, bytes.NewReader(norm)); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// reference validates raw with the jsonschema/v5 compilation of the same
// declaration (used by the differential fuzz tests and the benchmark).
func (t *Tool) reference(raw []byte) error {
	s, err := t.compiled()
	if err != nil {
		return fmt.Errorf("the reference does not compile the schema: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return s.Validate(v)
}
