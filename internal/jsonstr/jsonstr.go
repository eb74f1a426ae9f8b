// Package jsonstr writes JSON strings, numbers and decoded-JSON values
// without reflection, byte for byte as encoding/json does, for the
// hand-written encoders on hot paths (the builtin judge's verdict, the
// report's case data, results.jsonl).
package jsonstr

import (
	"math/bits"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// safe says which ASCII bytes are written as they are.
var safe = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// word is the 8 bytes of s from i on, the first in the lowest byte.
func word(s string, i int) uint64 {
	w := s[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// special has the high bit set of each byte of the word x that needs
// escaping or is 0x80 and above, and of no byte before the first such
// one (bytes after it may be marked too): its trailing zeros over 8 are
// the first such byte's index.
func special(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// A byte of v is 0 exactly where x holds one of the bytes v tests
	// for; (v-ones)&^v sets the high bit of a zero byte (and maybe of
	// bytes above it, never below: a borrow only runs upwards, from a
	// zero byte). '<' and '>' differ only in bit 0x02 and '"' and '&'
	// only in 0x04, so one test each covers both of a pair. Bytes of
	// 0x80 and above are caught by x itself, and x-0x20*ones&^x catches
	// those below 0x20.
	ltgt := (x | 0x02*ones) ^ '>'*ones
	qamp := (x | 0x04*ones) ^ '&'*ones
	bs := x ^ '\\'*ones
	return (x | (ltgt-ones)&^ltgt | (qamp-ones)&^qamp | (bs-ones)&^bs | (x-0x20*ones)&^x) & highs
}

// Append appends s as a JSON string with encoding/json's
// default (HTML-safe) escaping; invalid UTF-8 becomes U+FFFD.
func Append(b []byte, s string) []byte {
	b, _ = AppendValid(b, s)
	return b
}

// AppendValid is Append that also says whether s was valid UTF-8 (when
// not, its invalid bytes were written as U+FFFD, and the string reads
// back as another).
func AppendValid(b []byte, s string) (_ []byte, valid bool) {
	valid = true
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Most text needs no escape: it is stepped over 8 bytes at a
		// time, to the first byte of a word that needs a look (special);
		// a string's last bytes are looked at as the word that ends it,
		// when they are plain.
		if i+8 <= len(s) {
			m := special(word(s, i))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
		} else if len(s) >= 8 && special(word(s, len(s)-8)) == 0 {
			break
		}
		// From there the rest of the word (or the last bytes, fewer than
		// 8) is read byte by byte, then words again: text thick with
		// escapes or multi-byte characters costs no word test a byte.
		for end := min(i+8, len(s)); i < end; {
			c := s[i]
			if c < utf8.RuneSelf {
				if safe[c] {
					i++
					continue
				}
				b = append(b, s[start:i]...)
				switch c {
				case '"', '\\':
					b = append(b, '\\', c)
				case '\b':
					b = append(b, '\\', 'b')
				case '\f':
					b = append(b, '\\', 'f')
				case '\n':
					b = append(b, '\\', 'n')
				case '\r':
					b = append(b, '\\', 'r')
				case '\t':
					b = append(b, '\\', 't')
				default:
					b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
				}
				i++
				start = i
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, s[start:i]...)
				b = append(b, `\ufffd`...)
				valid = false
			case r == '\u2028' || r == '\u2029':
				b = append(b, s[start:i]...)
				b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			default:
				i += size
				continue
			}
			i += size
			start = i
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"'), valid
}
