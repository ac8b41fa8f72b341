// Package webdriver is the one W3C WebDriver request the browser tests share (tests/e2e and tests/compat
// drive WebKitGTK through WebKitWebDriver): a JSON command in, the response's "value" out.
package webdriver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Do sends one command to the driver at base (http://127.0.0.1:PORT) and returns its value; a status other
// than 200 is an error that carries the driver's value (its error and message).
func Do(c *http.Client, base, method, path string, body any) (json.RawMessage, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("webdriver %s %s: %d %s", method, path, res.StatusCode, b)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("webdriver %s %s: %d %s", method, path, res.StatusCode, env.Value)
	}
	return env.Value, nil
}
