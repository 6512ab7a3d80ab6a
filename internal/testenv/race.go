//go:build race

package testenv

// Race reports whether the tests were built with the race detector (go test -race).
const Race = true
