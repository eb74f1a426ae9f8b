package stats_test

import (
	"fmt"

	"github.com/routebench/routebench/harness/stats"
)

// Two versions disagree on 12 cases: 2 got worse, 10 got better.
func ExampleMcNemarExact() {
	fmt.Printf("%.4f\n", stats.McNemarExact(2, 10))
	// Output: 0.0386
}

// Five cases all moving one way is still not enough at alpha 0.05.
func ExampleMinDetectable() {
	fmt.Printf("%d %.4f\n", stats.MinDetectable(0.05), stats.McNemarExact(0, 5))
	// Output: 6 0.0625
}

func ExampleComparePaired() {
	var pairs []stats.Pair
	for range 30 {
		pairs = append(pairs, stats.Pair{Base: stats.Hit, Head: stats.Hit})
	}
	for range 3 {
		pairs = append(pairs, stats.Pair{Base: stats.Miss, Head: stats.Hit})
	}
	d := stats.ComparePaired(pairs, stats.DefaultThresholds)
	fmt.Printf("delta %+.3f, p %.2f, significant %v\n", d.Delta, d.P, d.Significant)
	fmt.Println(d.Warnings[0])
	// Output:
	// delta +0.091, p 0.25, significant false
	// only 3 discordant cases: need >= 6 to detect a change at alpha 0.05; add cases
}
