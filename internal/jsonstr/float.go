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
	if out, ok := appendFewDecimals(b, f); ok {
		return out, true
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

// fewDecimals is how many decimals appendFewDecimals writes at most,
// fewDecimalsScale 10 to that power, and fewDecimalsBelow the magnitude
// it takes.
const (
	fewDecimals      = 4
	fewDecimalsScale = 1e4
	fewDecimalsBelow = 1e9
)

// appendFewDecimals writes f from its digits when f is the float nearest
// a decimal of at most four decimals (scores and confidences are rounded
// to four places), as strconv's shortest form would, without its general
// search. That decimal k/10⁴ reads back as f, and no shorter decimal does:
// one with at most four decimals is a multiple of 10⁻⁴ away, one with
// more and fewer significant digits is below a tenth of f's leading
// digit's place away, and below 10⁹ floats are under 2⁻²³ apart. So the
// shortest form is k/10⁴'s digits, the same bytes. ok is false, and b
// unchanged, for any other f (and for zero, whose sign strconv keeps).
func appendFewDecimals(b []byte, f float64) ([]byte, bool) {
	if f == 0 || f <= -fewDecimalsBelow || f >= fewDecimalsBelow {
		return b, false
	}
	k := math.Round(f * fewDecimalsScale)
	if k/fewDecimalsScale != f {
		return b, false
	}
	if k < 0 {
		b = append(b, '-')
		k = -k
	}
	n := uint64(k)
	b = strconv.AppendUint(b, n/fewDecimalsScale, 10)
	frac := n % fewDecimalsScale
	if frac == 0 {
		return b, true
	}
	var digits [fewDecimals]byte
	for i := fewDecimals - 1; i >= 0; i-- {
		digits[i] = byte('0' + frac%10)
		frac /= 10
	}
	end := fewDecimals
	for digits[end-1] == '0' {
		end--
	}
	b = append(b, '.')
	return append(b, digits[:end]...), true
}
