//go:build unix

package cputime

import "testing"

// Spinning for a while must show as CPU time: a broken reading (always 0,
// or the wall clock's units) fails here.
func TestProcessCountsWork(t *testing.T) {
	before := Process()
	x := 0
	for i := range 200_000_000 {
		x ^= i * 31
	}
	if x == 42 {
		t.Log(x) // keeps the loop
	}
	spent := Process() - before
	if spent <= 0 {
		t.Fatalf("CPU time did not grow over a busy loop: %v", spent)
	}
}
