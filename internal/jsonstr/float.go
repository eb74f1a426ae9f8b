package jsonstr

import (
	"math"
	"strconv"
)

// AppendFloat writes a float64 as encoding/json does: the shortest form,
// exponent notation only below 1e-6 or from 1e21, "e-07" as "e-7". ok is
// false for NaN and infinities, which JSON cannot hold (encoding/json
// fails on them); b is then returned unchanged.
func AppendFloat(b []byte, f float64) (out []byte, ok bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
