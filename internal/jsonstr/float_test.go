package jsonstr

import (
	"encoding/json"
	"math"
	"testing"
)

func TestAppendFloatMatchesEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -2.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.25e22,
		-3e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.44, 123456.789} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := AppendFloat([]byte("x"), f); !ok || string(got) != "x"+string(want) {
			t.Errorf("AppendFloat(%v) = %s, %v; want %s", f, got, ok, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, ok := AppendFloat([]byte("x"), f); ok || string(got) != "x" {
			t.Errorf("AppendFloat(%v) = %q, %v; want x, false", f, got, ok)
		}
	}
}

// FuzzAppendFloat compares AppendFloat with json.Marshal on any finite
// float64.
func FuzzAppendFloat(f *testing.F) {
	for _, x := range []float64{0, 1e-7, 1e21, -0.5} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		want, err := json.Marshal(x)
		got, ok := AppendFloat(nil, x)
		if (err == nil) != ok || ok && string(got) != string(want) {
			t.Fatalf("AppendFloat(%v) = %s, %v; json.Marshal: %s, %v", x, got, ok, want, err)
		}
	})
}

// Floats nearest a decimal of up to four places (scores and confidences)
// are written from their digits: the same bytes as json.Marshal, at every
// such decimal from -2 to 2 and at larger magnitudes up to where the
// shortcut stops, and floats of more places beside them.
func TestAppendFloatFewDecimals(t *testing.T) {
	check := func(f float64) {
		t.Helper()
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := AppendFloat([]byte("x"), f); !ok || string(got) != "x"+string(want) {
			t.Fatalf("AppendFloat(%v) = %s, %v; want %s", f, got, ok, want)
		}
	}
	for k := -20000; k <= 20000; k++ {
		check(float64(k) / 1e4)
		check(float64(k)/1e4 + 1e-9)
		check(math.Nextafter(float64(k)/1e4, 3))
	}
	for _, f := range []float64{999999999.9999, 999999999.99995, 1e9, -1e9, 123456789.0001, 0.00005, 1e-4, 5e-5, 0.1 + 0.2, 1.0 / 3} {
		check(f)
	}
}

// FuzzAppendFloatFewDecimals compares AppendFloat with json.Marshal on
// decimals of up to six places and their neighbouring floats, where the
// shortcut for four places is taken or just missed.
func FuzzAppendFloatFewDecimals(f *testing.F) {
	f.Add(int64(1312), uint8(4), int8(0))
	f.Add(int64(-99999999999999), uint8(4), int8(1))
	f.Fuzz(func(t *testing.T, k int64, places uint8, step int8) {
		x := float64(k) / math.Pow10(int(places%7))
		for ; step > 0; step-- {
			x = math.Nextafter(x, math.Inf(1))
		}
		for ; step < 0; step++ {
			x = math.Nextafter(x, math.Inf(-1))
		}
		want, err := json.Marshal(x)
		got, ok := AppendFloat(nil, x)
		if (err == nil) != ok || ok && string(got) != string(want) {
			t.Fatalf("AppendFloat(%v) = %s, %v; json.Marshal: %s, %v", x, got, ok, want, err)
		}
	})
}

func BenchmarkAppendFloat(b *testing.B) {
	var buf []byte
	for b.Loop() {
		buf, _ = AppendFloat(buf[:0], 0.1312)
		buf, _ = AppendFloat(buf, 0.0436)
		buf, _ = AppendFloat(buf, 0.9)
	}
}
