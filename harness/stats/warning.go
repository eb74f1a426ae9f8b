package stats

// Warning kinds, so renderers and tests can tell warnings apart without
// parsing their text.
const (
	// WarnFewDiscordant: too few cases changed outcome for the test to
	// detect anything; the delta may be noise.
	WarnFewDiscordant = "few_discordant"
	// WarnNoCases: no case falls in the metric's denominator.
	WarnNoCases = "no_cases"
	// WarnDegenerateResamples: some bootstrap resamples left one version
	// with an empty denominator and were dropped.
	WarnDegenerateResamples = "degenerate_resamples"
)

// Warning is data, not a log line: it says what is wrong with a result and
// what to do about it, and a renderer decides how to show it.
type Warning struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (w Warning) String() string { return w.Message }
