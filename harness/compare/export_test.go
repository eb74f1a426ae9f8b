package compare

// SpillAbove makes SeriesCollector move its records to a temporary file
// once they take more than n bytes (0: at every record) until restore.
func SpillAbove(n int) (restore func()) {
	old := spillInMemory
	spillInMemory = n
	return func() { spillInMemory = old }
}
