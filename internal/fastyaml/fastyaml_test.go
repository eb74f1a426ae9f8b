package fastyaml

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// accepted are made-up documents in the subset: Parse must take each and
// give yaml.v3's tree.
var inSubset = []string{
	"a: 1\n",
	"a: 1\nb: two\nc: \"three\"\nd: 'four'\n",
	"  - id: x-1\n    input: \"hello there\"\n    tags: [en, greet]\n    expect: {action: execute, skill: say_hi, params: {who: world, n: 2}}\n",
	"- a\n- b\n-\n- c\n",
	"-   \n- x\n",
	"- # nothing\n- x\n",
	"a:\nb: 1\n",
	"a: # c\nb:\n",
	"a:\n- x\n- y\nb: 1\n",
	"- k:\n  - a\n  j: 1\n",
	"- k:\n- a\n",
	"-\n  a: 1\n  b: 2\n-\n - x\n",
	"a:\n  b:\n    c: [1, 2.5, -3, 0x1F, 0o17, 1_000, .inf, -.Inf, .nan, 1e3]\n",
	"t: [true, False, TRUE, yes, no, on, off, null, Null, ~, NULL, nil]\n",
	"d: [2026-11-30, 2026-11-30T10:00:00Z, 2026-1-2, 2026-11-30 10:00:00, 12:30, 1:2:3]\n",
	"m: {<<: x, <: y, <<<: z}\n",
	"<<: {a: 1}\n",
	"n: [+1, +.5, -.5, ., -, +, 0b101, -0b11, 0777, 09, 1__2, 0x, 9223372036854775808, 18446744073709551616]\n",
	"s: 'it''s'\nd: \"a\\tb\\n\\\\\\\"\\x41\\u00e9\\U0001F600\\0\\a\\b\\v\\f\\r\\e\\ x\"\n",
	"s: \"\\N\\_\\L\\P\\'\"\n",
	"q: \"  spaced  out  \"\nr: '  also  '\n",
	"e: []\nf: {}\ng: [ ]\nh: { }\n",
	"nested: [[a, b], {c: d}, [], {}]\n",
	"map: {a: [1, 2], b: {c: [d]}}\n",
	"url: http://example.com/a?b=c#frag\n",
	"scopes: [orders:read, alerts:read]\n",
	"colon: a:b c\n",
	"hash: a#b # comment\n",
	"dash: -x\nneg: -5\n",
	"\"quoted key\": v\n'single': w\n",
	"k: v # trailing\n# own line\n  # indented own line\nj: w\n",
	"中文: 值\nkey: 查一下华东大区上周已发货的订单\n",
	"- id: 中文\n  input: \"查一下\"\n  tags: [中, 文]\n",
	"emoji: 😀 ok\nk: [😀, \"😀\"]\n",
	"k: &a [1, 2]\nj: *a\n",
	"k: &a\n  x: 1\nj: *a\nl: *a\n",
	"k: &a\n- 1\nj: *a\n",
	"- &t\n  - name: s\n- *t\n",
	"k: &a v\nk2: &a w\nj: *a\n",
	"a: &x-1_y 1\nb: *x-1_y\n",
	"- a: 1\n  b:\n    - c: 2\n      d: [3]\n    - e\n  f: g\n- h\n",
	"a:\n    b: 1\n    c:\n        - x\n        - y\n",
	"   a: 1\n   b: 2\n",
	"k :  v\n",
	"a: b   \nc: d\n",
	"x: a b  c\n",
	"y: {a: b c, d: e  f}\n",
	"'': empty key\n",
	"k: ''\nj: \"\"\n",
	"k: '#not a comment'\nj: \"#\"\n",
	"k: a'b\"c\n",
	"no newline at end: x",
	"- x\n\n\n- y\n",
	"k: [a b, c d]\n",
	"k: [-a, -1]\n",
	"crlf: 1\r\nlist:\r\n- a\r\n- 'b' # c\r\n\r\nmap: {k: \"v\"}\r\nlast: x\r",
	"- id: 中文\r\n  input: \"查一下\"\r\n  e:\r\n",
	"k: " + strings.Repeat("a", 2000) + "\n",
	"- " + strings.Repeat("b", 2000) + "\n- k: " + strings.Repeat("c", 2000) + "\n  j: \"" + strings.Repeat("d", 2000) + "\"\n",
	"k: [" + strings.Repeat("x, ", 800) + "y]\n",
	"a: b\n    # a deeper comment\nc: d\n",
	"- a\n  # c\n- b\n",
	"a  : b\n",
	"a: 'x' # c\nb: \"y\" \n",
	"- {a: 1}\n- [b]\n- \"c\"\n",
	"a:\n- b:\n  - c\n  d: e\n",
	"a:\n  - b\n  -\n  - c\n",
	"a: &x 1\nb: *x\nc: *x\n",
	"k: v\nk: w\n",
	"'a''b': \"c\\\"d\"\n",
	"a: b:c\n",
	"a: b :c\n",
	"a: [b:c, d:e]\n",
	"a: {b: c:d}\n",
	"a: x\u00a0y\u3000z\n",
	"long: [" + strings.Repeat("查一下, \"订单\", {区: 华东}, ", 300) + "end]\n",
}

// declined are made-up documents outside the subset (or not YAML at
// all): Parse must decline each.
var outside = []string{
	"",
	"# only a comment\n",
	"scalar\n",
	"[a, b]\n",
	"---\na: 1\n",
	"a: 1\n...\n",
	"%YAML 1.2\n---\na: 1\n",
	"a:\t1\n",
	"a: 1\rb: 2\n",
	"a: 'x\ry'\n",
	"\ufeffa: 1\n",
	"a: x\u2028y\n",
	"a: \x85\n",
	"a: \x7f\n",
	"a: \xff\n",
	"a: |\n  text\n",
	"a: >\n  text\n",
	"a: !!str 1\n",
	"a: !foo x\n",
	"? a\n: b\n",
	"a: multi\n  line\n",
	"a: \"multi\n  line\"\n",
	"a: 'multi\n  line'\n",
	"a: [1,\n  2]\n",
	"a: {b: 1,\n  c: 2}\n",
	"a: [1, 2,]\n",
	"a: {b}\n",
	"a: {b: }\n",
	"a: [b: c]\n",
	"a: [*x]\n",
	"a: *nowhere\n",
	"a: &a\n  b: *a\n",
	"a: b: c\n",
	"- - a\n",
	"a: - b\n",
	"a: 1\n- b\n",
	"- a\nb: 1\n",
	"a:\n  - x\n  b: 1\n",
	"a:\n    b: 1\n  c: 2\n",
	"  a: 1\nb: 2\n",
	"a: \"bad \\q escape\"\n",
	"a: \"slash \\/ escape\"\n",
	"a: \"\\ud800\"\n",
	"a: \"\\x4\"\n",
	"a: \"trailing\\\n  break\"\n",
	"a: \"x\"y\n",
	"a: \"x\"#c\n",
	"a: @x\n",
	"a: `x`\n",
	"a: %x\n",
	"&a k: v\n",
	"- &a k: v\n",
	"k: &a\n",
	"*a : v\n",
	"a: [x?y]\n",
	"a: [x:]\n",
	"a: {x:y}\n",
	"a: [x # c\n  ]\n",
	"a: [\"x\" , 'y']\n  # ok so far\n  b\n",
	strings.Repeat("k", 1001) + ": v\n",
	"a: ?x\n",
	"a: :x\n",
	"a: &a.b x\n",
	"*a: b\n",
	"a: *x\n",
	"a: [&x y]\n",
	"k: -\n",
	"- k: v\n j: w\n",
	"a: 1\n  b: 2\n",
}

func TestAccepted(t *testing.T) {
	for _, in := range inSubset {
		problem, ok := check([]byte(in))
		if !ok {
			t.Errorf("Parse declined %q", in)
			continue
		}
		if problem != "" {
			t.Errorf("%q: %s", in, problem)
		}
	}
}

func TestDeclined(t *testing.T) {
	for _, in := range outside {
		if _, ok := Parse([]byte(in)); ok {
			t.Errorf("Parse took %q", in)
		}
	}
}

// TestPlainTagTable holds plainTag's copy of yaml.v3's table of words to
// yaml.v3: every word in it, every letter that hints at it alone and with
// more after it, and a few near misses.
func TestPlainTagTable(t *testing.T) {
	words := []string{"true", "True", "TRUE", "false", "False", "FALSE", "~", "null", "Null", "NULL", "<<",
		"tRUE", "nULL", "Yes", "yes", "no", "NO", "on", "Off", "y", "n", "~~", "<", "<<<", "t", "f", "o", "O", "Y", "N", "T", "F"}
	for _, w := range words {
		for _, v := range []string{w, w + "x", w + " x"} {
			n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
			want := n.ShortTag()
			if got := plainTag(n); got != want {
				t.Errorf("plainTag(%q) = %s, want %s", v, got, want)
			}
		}
	}
}

// TestRepositoryYAML parses every YAML file of the repository's suites
// and fixtures: where Parse takes one it agrees with yaml.v3, and it takes
// the ops suites, which gencases copies into large suites.
func TestRepositoryYAML(t *testing.T) {
	files := repositoryYAML(t)
	took := 0
	for _, f := range files {
		problem, ok := check(f.data)
		if problem != "" {
			t.Errorf("%s: %s", f.name, problem)
		}
		if ok {
			took++
		} else if strings.Contains(f.name, "suites/ops/") {
			t.Errorf("%s: Parse declined an ops suite", f.name)
		}
	}
	t.Logf("Parse took %d of %d files", took, len(files))
}
