// Package jsonread reads JSON without reflection, for hand-written
// decoders on hot paths (results.jsonl is read back several times a run).
//
// A Reader is strict and gives up rather than guess: on anything it is not
// sure encoding/json decodes to the same value (a syntax error, a type it
// was not asked for, a number out of range, invalid UTF-8, a surrogate
// escape, nesting deeper than MaxDepth) it marks itself failed and reads
// nothing more. Callers then decode the same bytes again with
// encoding/json, which gives the value or the error users have always
// seen. So a Reader never accepts what encoding/json rejects, and what it
// accepts it decodes to exactly what encoding/json gives on a zero value:
// null leaves a value zero, [] is an empty non-nil slice, {} an empty
// non-nil map, numbers in an any are float64.
//
// Typical use, decoding an object into a struct:
//
//	if r.Null() { return }
//	for more := r.ObjectStart(); more; more = r.ObjectNext() {
//		switch string(r.Key()) {
//		case "name":
//			v.Name = r.String()
//		default:
//			r.Fail() // unknown, or differently cased: leave it to encoding/json
//		}
//	}
//
// and at the end of the input, r.End() says whether every byte was read
// without failing.
package jsonread

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting Any and Skip follow; encoding/json's own
// limit is far higher, so deeper input is only ever a fallback.
const MaxDepth = 512

// Reader reads one JSON text. The zero value reads nothing; Reset gives
// it input.
type Reader struct {
	data   []byte
	pos    int
	depth  int
	failed bool
	// buf collects a string that has escapes.
	buf []byte
	// names holds strings Name has returned, by a hash of their bytes,
	// so that equal ones share memory and cost one allocation.
	names *[nameSlots]string
}

// nameSlots is the size of the name cache: a name whose slot another
// holds is copied again (and takes the slot), so memory stays bounded
// whatever the input holds.
const (
	nameBits   = 12
	nameSlots  = 1 << nameBits
	maxNameLen = 128
)

// Reset starts reading data from its beginning.
func (r *Reader) Reset(data []byte) {
	r.data, r.pos, r.depth, r.failed = data, 0, 0, false
}

// Fail gives up: every later read returns a zero value, and End reports
// false.
func (r *Reader) Fail() {
	r.failed = true
	r.pos = len(r.data)
}

// Failed reports whether the reader has given up.
func (r *Reader) Failed() bool { return r.failed }

// End reports whether the whole input was read without failing: only
// whitespace may follow the last value.
func (r *Reader) End() bool {
	r.skipSpace()
	return !r.failed && r.pos == len(r.data)
}

func (r *Reader) skipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\n', '\t', '\r':
			r.pos++
		default:
			return
		}
	}
}

// peek is the next byte after whitespace, 0 at the end.
func (r *Reader) peek() byte {
	r.skipSpace()
	if r.pos < len(r.data) {
		return r.data[r.pos]
	}
	return 0
}

// literal consumes word (the rest of true, false or null after its first
// byte has been seen).
func (r *Reader) literal(word string) {
	if len(r.data)-r.pos < len(word) || string(r.data[r.pos:r.pos+len(word)]) != word {
		r.Fail()
		return
	}
	r.pos += len(word)
}

// Null consumes a null and reports whether there was one.
func (r *Reader) Null() bool {
	if r.peek() != 'n' {
		return false
	}
	r.literal("null")
	return !r.failed
}

// ObjectStart consumes the { of an object and reports whether a member
// follows (then read its Key and value, and call ObjectNext).
func (r *Reader) ObjectStart() bool {
	if r.peek() != '{' {
		r.Fail()
		return false
	}
	r.pos++
	if r.peek() == '}' {
		r.pos++
		return false
	}
	return !r.failed
}

// ObjectNext consumes what follows a member's value and reports whether
// another member follows.
func (r *Reader) ObjectNext() bool {
	switch r.peek() {
	case ',':
		r.pos++
		return true
	case '}':
		r.pos++
		return false
	}
	r.Fail()
	return false
}

// ArrayStart consumes the [ of an array and reports whether an element
// follows.
func (r *Reader) ArrayStart() bool {
	if r.peek() != '[' {
		r.Fail()
		return false
	}
	r.pos++
	if r.peek() == ']' {
		r.pos++
		return false
	}
	return !r.failed
}

// ArrayNext consumes what follows an element and reports whether another
// element follows.
func (r *Reader) ArrayNext() bool {
	switch r.peek() {
	case ',':
		r.pos++
		return true
	case ']':
		r.pos++
		return false
	}
	r.Fail()
	return false
}

// Key reads a member's name and its colon, for matching against struct
// fields. The bytes are the input's, valid until the next Reset. A name
// with an escape fails: encoding/json matches it after unescaping, and
// so does the fallback.
func (r *Reader) Key() []byte {
	if r.peek() != '"' {
		r.Fail()
		return nil
	}
	start := r.pos + 1
	end := start
	for end < len(r.data) {
		c := r.data[end]
		if c == '"' {
			break
		}
		if c == '\\' || c < 0x20 {
			r.Fail()
			return nil
		}
		end++
	}
	if end == len(r.data) {
		r.Fail()
		return nil
	}
	r.pos = end + 1
	if r.peek() != ':' {
		r.Fail()
		return nil
	}
	r.pos++
	return r.data[start:end]
}

// MapKey reads a member's name, unescaped, and its colon, for a map key.
func (r *Reader) MapKey() string {
	if r.peek() != '"' {
		r.Fail()
		return ""
	}
	k := r.str()
	if r.peek() != ':' {
		r.Fail()
		return ""
	}
	r.pos++
	return k
}

// String reads a string; null is "".
func (r *Reader) String() string {
	switch r.peek() {
	case '"':
		return r.str()
	case 'n':
		r.literal("null")
		return ""
	}
	r.Fail()
	return ""
}

// Name reads a string as String does, for a value that repeats across
// the input (a skill, a stage, a tag): equal names mostly share one
// string.
func (r *Reader) Name() string {
	if r.peek() != '"' {
		return r.String()
	}
	b := r.strBytes()
	if r.failed || len(b) == 0 {
		return ""
	}
	if len(b) > maxNameLen {
		return string(b)
	}
	if r.names == nil {
		r.names = new([nameSlots]string)
	}
	slot := &r.names[nameHash(b)]
	if *slot != string(b) {
		*slot = string(b)
	}
	return *slot
}

// nameHash mixes a name's length and its first and last 8 bytes into a
// slot of the name cache: cheaper than hashing every byte, and names
// that share a prefix (query_orders_by_region, query_alerts_by_zone)
// still differ at one end or the other.
func nameHash(b []byte) uint64 {
	var head, tail uint64
	if len(b) >= 8 {
		head = binary.LittleEndian.Uint64(b)
		tail = binary.LittleEndian.Uint64(b[len(b)-8:])
	} else {
		for i, c := range b {
			head |= uint64(c) << (8 * i)
		}
	}
	h := (head*0x9E3779B97F4A7C15 ^ tail*0xC2B2AE3D27D4EB4F ^ uint64(len(b))) * 0x165667B19E3779F9
	return h >> (64 - nameBits)
}

// StringLike reads a string as String does, and returns like itself when
// they are equal: a value that often repeats another (an id) costs no copy.
func (r *Reader) StringLike(like string) string {
	if r.peek() != '"' {
		return r.String()
	}
	b := r.strBytes()
	if r.failed {
		return ""
	}
	if string(b) == like {
		return like
	}
	return string(b)
}

// str reads the string that starts at r.pos.
func (r *Reader) str() string {
	b := r.strBytes()
	if r.failed {
		return ""
	}
	return string(b)
}

// strBytes reads the string that starts at r.pos and returns its text:
// the input's bytes, or r.buf's when it has escapes; valid until the next
// read.
func (r *Reader) strBytes() []byte {
	start := r.pos + 1
	i := plainRun(r.data, start)
	high := byte(0)
	if hasHighBit(r.data[start:i]) {
		high = utf8.RuneSelf
	}
	for i < len(r.data) {
		c := r.data[i]
		switch {
		case c == '"':
			if high >= utf8.RuneSelf && !utf8.Valid(r.data[start:i]) {
				// encoding/json turns each bad byte into U+FFFD.
				r.Fail()
				return nil
			}
			r.pos = i + 1
			return r.data[start:i]
		case c == '\\':
			return r.escaped(start, i)
		case c < 0x20:
			r.Fail()
			return nil
		}
		high |= c
		i++
	}
	r.Fail()
	return nil
}

// escaped reads the rest of a string that has an escape at i; start is
// where its text began.
func (r *Reader) escaped(start, i int) []byte {
	b := append(r.buf[:0], r.data[start:i]...)
	for i < len(r.data) {
		c := r.data[i]
		switch {
		case c == '"':
			r.pos = i + 1
			r.buf = b
			if !utf8.Valid(b) {
				r.Fail()
				return nil
			}
			return b
		case c < 0x20:
			r.Fail()
			return nil
		case c != '\\':
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(r.data) {
			r.Fail()
			return nil
		}
		switch e := r.data[i+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			cp := hex4(r.data[i+2:])
			// A surrogate is left to encoding/json, which pairs it or
			// makes it U+FFFD.
			if cp < 0 || cp >= 0xD800 && cp < 0xE000 {
				r.Fail()
				return nil
			}
			b = utf8.AppendRune(b, rune(cp))
			i += 4
		default:
			r.Fail()
			return nil
		}
		i += 2
	}
	r.Fail()
	return nil
}

// plainRun returns where, from i, the first 8-byte block of data that may
// hold a quote, a backslash or a control character starts (or the last
// bytes, fewer than 8): the bytes before it are string text to copy as
// they are. Strings are most of a results line.
func plainRun(data []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		quote := x ^ ('"' * ones)
		backslash := x ^ ('\\' * ones)
		// A byte is zero, or below 0x20, exactly when its high bit is
		// set here (bytes of 0x80 and above are masked out by ^x).
		special := (quote-ones)&^quote | (backslash-ones)&^backslash | (x-0x20*ones)&^x
		if special&highs != 0 {
			break
		}
	}
	return i
}

// hasHighBit reports whether b holds a byte of 0x80 or above.
func hasHighBit(b []byte) bool {
	var acc uint64
	for len(b) >= 8 {
		acc |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		acc |= uint64(c)
	}
	return acc&0x8080808080808080 != 0
}

// hex4 is the value of four hex digits at the start of b, or -1.
func hex4(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	v := 0
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		v = v<<4 | int(c)
	}
	return v
}

// Bool reads true or false; null is false.
func (r *Reader) Bool() bool {
	switch r.peek() {
	case 't':
		r.literal("true")
		return !r.failed
	case 'f':
		r.literal("false")
	case 'n':
		r.literal("null")
	default:
		r.Fail()
	}
	return false
}

// number consumes a JSON number and returns its text and whether it is
// an integer (no fraction, no exponent).
func (r *Reader) number() (text []byte, integer bool) {
	start, i := r.pos, r.pos
	d := r.data
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		r.Fail()
		return nil, false
	}
	integer = true
	if i < len(d) && d[i] == '.' {
		integer = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			r.Fail()
			return nil, false
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integer = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			r.Fail()
			return nil, false
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	r.pos = i
	return d[start:i], integer
}

// Float reads a number as float64; null is 0.
func (r *Reader) Float() float64 {
	switch c := r.peek(); {
	case c == 'n':
		r.literal("null")
		return 0
	case c == '-' || '0' <= c && c <= '9':
		return r.float()
	}
	r.Fail()
	return 0
}

func (r *Reader) float() float64 {
	text, _ := r.number()
	if r.failed {
		return 0
	}
	if f, ok := shortDecimal(text); ok {
		return f
	}
	// encoding/json parses the same text the same way; a value out of
	// range is its error to report.
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		r.Fail()
		return 0
	}
	return f
}

// pow10 are the powers of ten shortDecimal divides by, exact in float64.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// shortDecimal is the value of a number of at most 15 digits and no
// exponent (scores, confidences): its digits as an integer and the power
// of ten are both exact in float64, so one division rounds correctly, to
// what strconv.ParseFloat gives, without its general parsing.
func shortDecimal(text []byte) (float64, bool) {
	neg := text[0] == '-'
	if neg {
		text = text[1:]
	}
	var m uint64
	digits, frac := 0, -1
	for _, c := range text {
		switch {
		case c == '.':
			frac = 0
			continue
		case c < '0' || c > '9': // an exponent
			return 0, false
		}
		m = m*10 + uint64(c-'0')
		digits++
		if frac >= 0 {
			frac++
		}
	}
	if digits > 15 {
		return 0, false
	}
	f := float64(m)
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f, true
}

// Int64 reads an integer; null is 0. A fraction or an exponent fails, as
// encoding/json refuses them for an integer field.
func (r *Reader) Int64() int64 {
	switch c := r.peek(); {
	case c == 'n':
		r.literal("null")
		return 0
	case c == '-' || '0' <= c && c <= '9':
	default:
		r.Fail()
		return 0
	}
	text, integer := r.number()
	if r.failed || !integer {
		r.Fail()
		return 0
	}
	if len(text) <= 18 { // no overflow possible
		neg := text[0] == '-'
		if neg {
			text = text[1:]
		}
		var v int64
		for _, c := range text {
			v = v*10 + int64(c-'0')
		}
		if neg {
			v = -v
		}
		return v
	}
	v, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		r.Fail()
		return 0
	}
	return v
}

// Int reads an integer that fits an int; null is 0.
func (r *Reader) Int() int {
	v := r.Int64()
	if v < math.MinInt || v > math.MaxInt {
		r.Fail()
		return 0
	}
	return int(v)
}

// Any reads any value as encoding/json decodes it into an any:
// map[string]any, []any, string, float64, bool or nil.
func (r *Reader) Any() any {
	switch c := r.peek(); {
	case c == '"':
		return r.str()
	case c == '{':
		if !r.enter() {
			return nil
		}
		m := map[string]any{}
		for more := r.ObjectStart(); more; more = r.ObjectNext() {
			k := r.MapKey()
			// A repeated name replaces the earlier value, as in
			// encoding/json.
			m[k] = r.Any()
		}
		r.depth--
		return m
	case c == '[':
		if !r.enter() {
			return nil
		}
		a := []any{}
		for more := r.ArrayStart(); more; more = r.ArrayNext() {
			a = append(a, r.Any())
		}
		r.depth--
		return a
	case c == '-' || '0' <= c && c <= '9':
		return r.float()
	case c == 't':
		r.literal("true")
		return true
	case c == 'f':
		r.literal("false")
		return false
	case c == 'n':
		r.literal("null")
		return nil
	}
	r.Fail()
	return nil
}

// enter counts a level of nesting and reports whether it is allowed.
func (r *Reader) enter() bool {
	r.depth++
	if r.depth > MaxDepth {
		r.Fail()
		return false
	}
	return true
}

// Skip reads one value of any kind and keeps nothing of it.
func (r *Reader) Skip() {
	switch c := r.peek(); {
	case c == '"':
		r.skipString()
	case c == '{':
		if !r.enter() {
			return
		}
		for more := r.ObjectStart(); more; more = r.ObjectNext() {
			if r.peek() != '"' {
				r.Fail()
				return
			}
			r.skipString()
			if r.peek() != ':' {
				r.Fail()
				return
			}
			r.pos++
			r.Skip()
		}
		r.depth--
	case c == '[':
		if !r.enter() {
			return
		}
		for more := r.ArrayStart(); more; more = r.ArrayNext() {
			r.Skip()
		}
		r.depth--
	case c == '-' || '0' <= c && c <= '9':
		r.number()
	case c == 't':
		r.literal("true")
	case c == 'f':
		r.literal("false")
	case c == 'n':
		r.literal("null")
	default:
		r.Fail()
	}
}

// skipString steps over the string at r.pos, checking it as encoding/json
// does: no control characters, only valid escapes. Other bytes, invalid
// UTF-8 included, are accepted (encoding/json replaces them).
func (r *Reader) skipString() {
	d := r.data
	for i := r.pos + 1; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			r.pos = i + 1
			return
		case c < 0x20:
			r.Fail()
			return
		case c == '\\':
			if i+1 >= len(d) {
				r.Fail()
				return
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if hex4(d[i+2:]) < 0 {
					r.Fail()
					return
				}
				i += 5
			default:
				r.Fail()
				return
			}
		}
	}
	r.Fail()
}

// Raw reads one value and returns its bytes (the input's, valid until
// the next Reset), for a part to hand to encoding/json whole.
func (r *Reader) Raw() []byte {
	r.skipSpace()
	start := r.pos
	r.Skip()
	if r.failed {
		return nil
	}
	return r.data[start:r.pos]
}
