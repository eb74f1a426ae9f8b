package jsonread

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// readAny is Any over the whole input: ok says the reader finished it.
func readAny(data []byte) (v any, ok bool) {
	var r Reader
	r.Reset(data)
	v = r.Any()
	return v, r.End()
}

// checkAny fails t when the reader accepts data and encoding/json does
// not, or when both accept it and decode different values.
func checkAny(t *testing.T, data []byte) (readerOK bool) {
	t.Helper()
	var want any
	jerr := json.Unmarshal(data, &want)
	got, ok := readAny(data)
	if ok && jerr != nil {
		t.Fatalf("%q: reader accepted what encoding/json refuses (%v): %#v", data, jerr, got)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: reader decoded %#v, encoding/json %#v", data, got, want)
	}
	return ok
}

func TestAnyMatchesEncodingJSON(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	for _, tc := range []struct {
		in       string
		readerOK bool // false: the reader leaves it to encoding/json
	}{
		{`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, true},
		{` { "x" : [ ] , "y" : { } } `, true},
		{`[]`, true},
		{`{}`, true},
		{`null`, true},
		{`"plain"`, true},
		{`"esc \" \\ \/ \b \f \n \r \t \u00e9 \u4e2d \u003c"`, true},
		{`"华东区 订单"`, true},
		{`-0`, true},
		{`0.1479`, true},
		{`-12.5e-3`, true},
		{`1E+2`, true},
		{`123456789012345678901234567890`, true},
		{`{"a":1,"a":2}`, true}, // the later value wins, as in encoding/json
		{`"\ud83d\ude00"`, false},
		{`"\udc00"`, false},
		{"\"bad \xff utf8\"", false},
		{`1e400`, false},
		{`{"a":1,}`, false},
		{`[1,]`, false},
		{`01`, false},
		{`1.`, false},
		{`.5`, false},
		{`+1`, false},
		{`-`, false},
		{`1e`, false},
		{`tru`, false},
		{`nul`, false},
		{`"unterminated`, false},
		{"\"tab\there\"", false},
		{`"\x"`, false},
		{`"\u12"`, false},
		{`{"a" 1}`, false},
		{`{a:1}`, false},
		{`[1 2]`, false},
		{`{} {}`, false},
		{``, false},
		{`  `, false},
		{deep, false},
	} {
		if ok := checkAny(t, []byte(tc.in)); ok != tc.readerOK {
			t.Errorf("%.40q: reader finished it: %v, want %v", tc.in, ok, tc.readerOK)
		}
	}
}

// Short decimals are parsed without strconv, to the same float64.
func TestShortDecimalsMatchParseFloat(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"0", "-0", "0.0", "-0.0", "1", "0.1", "0.3", "0.1479", "123456789012345", "0.000000000000001",
		"999999999999999", "9007199254740993", "0.1234567890123456", "1.5e3"}
	for range 100000 {
		digits := 1 + rng.IntN(15)
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteByte('-')
		}
		point := rng.IntN(digits + 1)
		for i := range digits {
			if i == point && i > 0 {
				b.WriteByte('.')
			}
			c := byte('0' + rng.IntN(10))
			if i == 0 && point != 1 {
				c = byte('1' + rng.IntN(9))
			}
			b.WriteByte(c)
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		want, werr := strconv.ParseFloat(text, 64)
		var r Reader
		r.Reset([]byte(text))
		got := r.Float()
		if !r.End() || werr != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: read %v (end %v), ParseFloat %v (%v)", text, got, r.End(), want, werr)
		}
	}
}

func TestTypedReads(t *testing.T) {
	var r Reader
	r.Reset([]byte(`{"s":"x","n":null,"i":-42,"f":0.25,"b":true,"big":9223372036854775807}`))
	var s, n string
	var i, big int64
	var f float64
	var b bool
	for more := r.ObjectStart(); more; more = r.ObjectNext() {
		switch string(r.Key()) {
		case "s":
			s = r.Name()
		case "n":
			n = r.String()
		case "i":
			i = r.Int64()
		case "f":
			f = r.Float()
		case "b":
			b = r.Bool()
		case "big":
			big = r.Int64()
		default:
			r.Fail()
		}
	}
	if !r.End() || s != "x" || n != "" || i != -42 || f != 0.25 || !b || big != 1<<63-1 {
		t.Fatalf("end %v: %q %q %d %v %v %d", r.End(), s, n, i, f, b, big)
	}
	// Values encoding/json refuses for these types make the reader fail.
	for _, tc := range []struct {
		in   string
		read func(*Reader)
	}{
		{`1.5`, func(r *Reader) { r.Int64() }},
		{`1e2`, func(r *Reader) { r.Int64() }},
		{`9223372036854775808`, func(r *Reader) { r.Int64() }},
		{`"1"`, func(r *Reader) { r.Int64() }},
		{`"true"`, func(r *Reader) { r.Bool() }},
		{`1`, func(r *Reader) { _ = r.String() }},
		{`1`, func(r *Reader) { r.Name() }},
		{`"1"`, func(r *Reader) { r.Float() }},
		{`{"A":1}`, func(r *Reader) { r.ObjectStart(); r.Key(); r.Fail() }},
		{`{"\u0061":1}`, func(r *Reader) { r.ObjectStart(); r.Key() }},
	} {
		r.Reset([]byte(tc.in))
		tc.read(&r)
		if r.End() {
			t.Errorf("%s: the reader finished it", tc.in)
		}
	}
}

// Equal names share memory; the table stays bounded.
func TestNamesShare(t *testing.T) {
	var r Reader
	r.Reset([]byte(`["get_order","get_\u006frder","get_order"]`))
	var got []string
	for more := r.ArrayStart(); more; more = r.ArrayNext() {
		got = append(got, r.Name())
	}
	if !r.End() || len(got) != 3 || got[0] != "get_order" || got[1] != "get_order" {
		t.Fatalf("%v %q", r.End(), got)
	}
	if got[2] != "get_order" || unsafe.StringData(got[0]) != unsafe.StringData(got[2]) || unsafe.StringData(got[1]) != unsafe.StringData(got[0]) {
		t.Errorf("equal names do not share one string")
	}
	// Distinct names beyond the cache's size still decode.
	var sb strings.Builder
	sb.WriteString("[")
	for i := range 3 * nameSlots {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`"n` + itoa(i) + `"`)
	}
	sb.WriteString("]")
	r.Reset([]byte(sb.String()))
	i := 0
	for more := r.ArrayStart(); more; more = r.ArrayNext() {
		if got := r.Name(); got != "n"+itoa(i) {
			t.Fatalf("name %d read as %q", i, got)
		}
		i++
	}
	if !r.End() || i != 3*nameSlots {
		t.Errorf("end %v after %d names", r.End(), i)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestRawAndSkip(t *testing.T) {
	var r Reader
	r.Reset([]byte(`{"a": {"b":[1,"\u00e9\n",{"c":null}]} , "z":true}`))
	r.ObjectStart()
	r.Key()
	raw := r.Raw()
	r.ObjectNext()
	r.Key()
	r.Skip()
	r.ObjectNext()
	if !r.End() || string(raw) != `{"b":[1,"\u00e9\n",{"c":null}]}` {
		t.Fatalf("end %v, raw %s", r.End(), raw)
	}
	for _, bad := range []string{`[1,]`, `{"a":}`, `"\q"`, "\"\x01\"", `{"a" 1}`, `[`, `tru`} {
		r.Reset([]byte(bad))
		r.Skip()
		if r.End() {
			t.Errorf("Skip accepted %q", bad)
		}
	}
	// encoding/json accepts bad UTF-8 in a string it skips, and so does Skip.
	r.Reset([]byte("\"\xff\""))
	r.Skip()
	if !r.End() {
		t.Error("Skip refused a string with bad UTF-8")
	}
}

// FuzzAny decodes arbitrary bytes with Any and with encoding/json: the
// reader may leave an input to encoding/json, but must never accept what
// encoding/json refuses nor decode a different value. Skip must accept
// exactly what encoding/json accepts, apart from nesting deeper than
// MaxDepth. Seeds: testdata/fuzz/FuzzAny.
//
//	go test ./internal/jsonread/ -run '^$' -fuzz '^FuzzAny$' -fuzztime 60s
func FuzzAny(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",true,null,{}]}`, `"\u00e9\ud83d\ude00"`, `-0.0e+1`, "\"\xff\"", `[[[]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAny(t, data)
		var r Reader
		r.Reset(data)
		r.Skip()
		skipped := r.End()
		valid := json.Valid(data)
		if skipped && !valid {
			t.Fatalf("%q: Skip accepted what encoding/json refuses", data)
		}
		if valid && !skipped && r.depth <= MaxDepth {
			t.Fatalf("%q: Skip refused valid JSON", data)
		}
	})
}
