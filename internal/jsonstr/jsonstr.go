// Package jsonstr writes JSON strings, numbers and decoded-JSON values
// without reflection, byte for byte as encoding/json does, for the
// hand-written encoders on hot paths (the builtin judge's verdict, the
// report's case data, results.jsonl).
package jsonstr

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// safe says which ASCII bytes are written as they are.
var safe = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// plainWords is how many bytes from the start of s, 8 at a time, are all
// ASCII written as they are: most text needs no escape, and is stepped
// over a word at a time in one call.
func plainWords(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		// A byte of v is 0 exactly where x holds one of the bytes v tests
		// for; (v-ones)&^v sets the high bit of a zero byte (and maybe of
		// bytes above it, which only stops the word early). '<' and '>'
		// differ only in bit 0x02 and '"' and '&' only in 0x04, so one
		// test each covers both of a pair. Bytes of 0x80 and above are
		// caught by x itself, and x-0x20*ones&^x catches those below 0x20.
		ltgt := (x | 0x02*ones) ^ '>'*ones
		qamp := (x | 0x04*ones) ^ '&'*ones
		bs := x ^ '\\'*ones
		special := x | (ltgt-ones)&^ltgt | (qamp-ones)&^qamp | (bs-ones)&^bs | (x-0x20*ones)&^x
		if special&highs != 0 {
			break
		}
	}
	return i
}

// Append appends s as a JSON string with encoding/json's
// default (HTML-safe) escaping; invalid UTF-8 becomes U+FFFD.
func Append(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		i += plainWords(s[i:])
		// The word plainWords stopped at (or the last bytes, fewer than
		// 8) is read byte by byte, then words again: a multi-byte
		// character or a short string's tail costs no call a byte.
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
	return append(b, '"')
}
