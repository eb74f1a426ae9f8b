package compare

// SpillAbove makes SeriesCollector move its records and its flip terms to
// temporary files once they take more than n bytes (0: at every record)
// until restore.
func SpillAbove(n int) (restore func()) {
	old, oldFlips := spillInMemory, flipTermsInMemory
	spillInMemory, flipTermsInMemory = n, n
	return func() { spillInMemory, flipTermsInMemory = old, oldFlips }
}

// TruncateForTest is how a flip cuts a case's input.
func TruncateForTest(s string, limit int) string { return truncate(s, limit) }

// CompactHashForTest is how a SeriesCollector keeps a case hash.
func CompactHashForTest(h string) string { return compactHash(h) }
