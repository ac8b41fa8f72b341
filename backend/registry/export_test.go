package registry

import "time"

// SetBound changes how long the registry waits for op's answer until the test ends (restore), so tests of
// causes never race the production bounds on a loaded machine.
func SetBound(op string, d time.Duration) (restore func()) {
	old := opBounds[op]
	b := old
	b.wait = d
	opBounds[op] = b
	return func() { opBounds[op] = old }
}
