//go:build !race

package toolcontract

const raceEnabled = false
