package toolcontract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// reference validates raw with the jsonschema/v5 compilation of the same
// declaration (used by the differential fuzz tests and the benchmark).
func (t *Tool) reference(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return t.compiled.Validate(v)
}
