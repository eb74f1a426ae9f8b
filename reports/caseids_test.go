package reports_test

import (
	"fmt"
	"math/rand/v2"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/reports"
)

var _ = Describe("the case id table", func() {
	// The plain way: a map of ids to positions, ids sorted.
	naive := func(ids []string, positions []int) ([]string, [][]int) {
		byID := map[string][]int{}
		for k, id := range ids {
			byID[id] = append(byID[id], positions[k])
		}
		sorted := slices.Sorted(func(yield func(string) bool) {
			for id := range byID {
				if !yield(id) {
					return
				}
			}
		})
		grouped := make([][]int, len(sorted))
		for i, id := range sorted {
			grouped[i] = byID[id]
		}
		return sorted, grouped
	}

	It("walks ids sorted with their positions in stream order, as a map of ids would, in memory or merged from disk", func() {
		r := rand.New(rand.NewPCG(1, 2))
		var ids []string
		var positions []int
		for i := range 20000 {
			// three versions' worth of repeats, ids of several lengths,
			// one empty and one that is a prefix of others
			id := fmt.Sprintf("case-%d", r.IntN(7000))
			switch i % 997 {
			case 0:
				id = ""
			case 1:
				id = "case-"
			}
			ids = append(ids, id)
			positions = append(positions, i)
		}
		wantIDs, wantPos := naive(ids, positions)
		// all in memory, and sorted in runs on disk and merged
		for _, inMemory := range []int{64 << 20, 16 << 10} {
			gotIDs, gotPos := reports.CaseOrderForTest(ids, positions, inMemory)
			Expect(gotIDs).To(Equal(wantIDs))
			Expect(gotPos).To(Equal(wantPos))
		}
	})

	It("finds an id's positions once grouped, and says when an id is not there", func() {
		var ids []string
		var positions []int
		for i := range 3000 {
			ids = append(ids, fmt.Sprintf("c-%d", i%1000))
			positions = append(positions, i)
		}
		for _, inMemory := range []int{64 << 20, 4 << 10} {
			got := reports.CasePositionsForTest(ids, positions, []string{"c-7", "c-999", "c-1000", "c-", "", "c-0", "c-99", "d"}, inMemory)
			Expect(got).To(Equal([][]int{{7, 1007, 2007}, {999, 1999, 2999}, nil, nil, nil, {0, 1000, 2000}, {99, 1099, 2099}, nil}))
		}
	})

	It("keeps positions that do not come as 0, 1, 2…", func() {
		ids := []string{"b", "a", "b", "c", "a"}
		positions := []int{0, 1, 5, 3, 9}
		gotIDs, gotPos := reports.CaseOrderForTest(ids, positions, 1<<20)
		Expect(gotIDs).To(Equal([]string{"a", "b", "c"}))
		Expect(gotPos).To(Equal([][]int{{1, 9}, {0, 5}, {3}}))
	})
})
