package providers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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

// String returns s with every secret replaced by Redacted, including a
// secret written with JSON escapes ("sk\u002d…", "\/", escaped letters,
// or escaped twice inside a JSON string inside JSON). When a secret hides
// behind escapes, the text is returned unescaped around it: losing the
// escapes of a string that echoed a key matters less than the key.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	out := r.plain(s)
	for i := 0; i < maxUnescapePasses && strings.Contains(out, `\`); i++ {
		n := unescapeJSON(out)
		if !r.matches(n) {
			break
		}
		out = r.plain(n)
	}
	return out
}

// Bytes is String for byte slices.
func (r *Redactor) Bytes(b []byte) []byte {
	if r == nil {
		return b
	}
	return []byte(r.String(string(b)))
}

func (r *Redactor) plain(s string) string {
	for _, re := range r.patterns {
		s = re.ReplaceAllLiteralString(s, Redacted)
	}
	return s
}

func (r *Redactor) matches(s string) bool {
	for _, re := range r.patterns {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// hides reports whether s holds a secret, as written or once unescaped.
func (r *Redactor) hides(s string) bool {
	return r.matches(s) || (strings.Contains(s, `\`) && r.matches(unescapeJSON(s)))
}

// maxNestedJSON is how deep JSON held in JSON strings (a tool call's
// arguments, an error body quoted in a message) is decoded and redacted.
const maxNestedJSON = 3

// JSON redacts a JSON document by its decoded content: every string value
// and every key, and JSON nested in strings, so escapes cannot hide a
// secret from the patterns. A document without secrets comes back with
// its bytes unchanged (recordings stay byte-identical); one with secrets
// is re-encoded with sorted keys. Data that is not JSON is redacted as
// text.
func (r *Redactor) JSON(data []byte) []byte {
	if r == nil {
		return data
	}
	v, ok := decodeJSON(data)
	if !ok {
		return r.Bytes(data)
	}
	out := data
	if red, changed := r.redactValue(v, 0); changed {
		out = encodeJSON(red)
	}
	// A configured pattern may span JSON syntax; apply the patterns to the
	// text too when the result stays JSON. The cassette store's final scan
	// refuses to write whatever still slips through.
	if text := []byte(r.plain(string(out))); json.Valid(text) {
		out = text
	}
	return out
}

func (r *Redactor) redactValue(v any, depth int) (any, bool) {
	switch t := v.(type) {
	case string:
		return r.redactString(t, depth)
	case map[string]any:
		changed := false
		out := make(map[string]any, len(t))
		for k, val := range t {
			k2 := r.String(k)
			val2, c := r.redactValue(val, depth)
			changed = changed || c || k2 != k
			out[k2] = val2
		}
		return out, changed
	case []any:
		changed := false
		out := make([]any, len(t))
		for i, val := range t {
			var c bool
			out[i], c = r.redactValue(val, depth)
			changed = changed || c
		}
		return out, changed
	}
	return v, false
}

func (r *Redactor) redactString(s string, depth int) (string, bool) {
	out := r.String(s)
	if depth < maxNestedJSON && looksLikeJSON(out) {
		if inner, ok := decodeJSON([]byte(out)); ok {
			if red, changed := r.redactValue(inner, depth+1); changed {
				out = string(encodeJSON(red))
			}
		}
	}
	return out, out != s
}

// leak reports where a secret survives in data, the bytes about to be
// written: in the raw bytes, or in any decoded key or string (unescaped,
// and JSON nested in strings decoded too). where names the place without
// quoting the secret.
func (r *Redactor) leak(data []byte) (where string, found bool) {
	if r == nil {
		return "", false
	}
	if r.matches(string(data)) {
		return "the file's bytes", true
	}
	v, ok := decodeJSON(data)
	if !ok {
		if r.hides(string(data)) {
			return "the file's text, once unescaped", true
		}
		return "", false
	}
	return r.leakIn(v, "", 0)
}

func (r *Redactor) leakIn(v any, path string, depth int) (string, bool) {
	switch t := v.(type) {
	case string:
		if r.hides(t) {
			return pathOr(path), true
		}
		if depth < maxNestedJSON && looksLikeJSON(t) {
			if inner, ok := decodeJSON([]byte(t)); ok {
				return r.leakIn(inner, path+" (JSON in the string)", depth+1)
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the first leak named is the same every time
		for _, k := range keys {
			if r.hides(k) {
				return pathOr(path) + " (a key)", true
			}
			if where, ok := r.leakIn(t[k], path+"."+k, depth); ok {
				return where, true
			}
		}
	case []any:
		for i, val := range t {
			if where, ok := r.leakIn(val, fmt.Sprintf("%s[%d]", path, i), depth); ok {
				return where, true
			}
		}
	}
	return "", false
}

func pathOr(path string) string {
	if path == "" {
		return "the document"
	}
	return strings.TrimPrefix(path, ".")
}

func looksLikeJSON(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && (t[0] == '{' || t[0] == '[' || t[0] == '"')
}

// decodeJSON decodes exactly one JSON value, numbers kept as written.
func decodeJSON(data []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// encodeJSON is canonicalJSON's encoding: sorted keys, no HTML escaping.
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Values from decodeJSON always encode; keep the contract anyway.
		return []byte(`"` + Redacted + `"`)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// maxUnescapePasses bounds how many levels of JSON escaping are peeled off
// text looking for a secret: JSON in a string in JSON in an error message
// is three.
const maxUnescapePasses = 4

// unescapeJSON decodes the JSON escapes in s (\uXXXX with surrogate pairs,
// \/, \", \\ and the control escapes), one level, wherever they are:
// text that quotes JSON is not JSON itself, so it cannot be decoded whole.
func unescapeJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
			i++
		case 'b', 'f', 'n', 'r', 't':
			b.WriteByte(controlEscape(e))
			i++
		case 'u':
			r, ok := hex4(s, i+2)
			if !ok {
				b.WriteByte(c)
				continue
			}
			i += 5
			if utf16.IsSurrogate(r) {
				if i+2 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if r2, ok := hex4(s, i+3); ok {
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							r = pair
							i += 6
						}
					}
				}
			}
			b.WriteRune(r) // a lone surrogate becomes U+FFFD
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func controlEscape(e byte) byte {
	switch e {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	}
	return '\t'
}

func hex4(s string, at int) (rune, bool) {
	if at+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[at : at+4]) {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
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
