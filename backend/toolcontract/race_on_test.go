//go:build race

package toolcontract

// raceEnabled: under -race sync.Pool drops items at random, so allocation counts mean nothing.
const raceEnabled = true
