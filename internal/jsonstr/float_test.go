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
