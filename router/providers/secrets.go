package providers

import (
	"fmt"
	"regexp"
	"sort"
)

// Redacted replaces every secret. It contains nothing a secret pattern
// matches, so redacting twice changes nothing (replays stay byte-identical).
const Redacted = "[REDACTED]"

// Redactor removes secrets from text before it is written anywhere.
type Redactor struct {
	patterns []*regexp.Regexp
}

// NewRedactor compiles the patterns and adds each literal secret (the API
// keys in use) as an exact match. Short literals are skipped: redacting
// every "abc" would mangle ordinary text, and such keys are not secret.
func NewRedactor(patterns []string, literals ...string) (*Redactor, error) {
	r := &Redactor{}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("secret pattern %q: %w", p, err)
		}
		r.patterns = append(r.patterns, re)
	}
	// Longest literal first, so a key containing another is removed whole.
	lits := append([]string(nil), literals...)
	sort.Slice(lits, func(i, j int) bool { return len(lits[i]) > len(lits[j]) })
	for _, l := range lits {
		if len(l) >= 8 {
			r.patterns = append(r.patterns, regexp.MustCompile(regexp.QuoteMeta(l)))
		}
	}
	return r, nil
}

// String returns s with every secret replaced by Redacted.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, re := range r.patterns {
		s = re.ReplaceAllLiteralString(s, Redacted)
	}
	return s
}

// Bytes is String for byte slices.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	for _, re := range r.patterns {
		b = re.ReplaceAllLiteral(b, []byte(Redacted))
	}
	return b
}

// Error wraps err so its message is redacted while errors.Is/As still see
// the original chain (SDK errors quote request URLs and response bodies).
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: r.String(err.Error()), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
