package jsonstr

import (
	"encoding/json"
	"testing"
)

func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ slash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f",
		"<b>&amp;</b>", "line\u2028para\u2029", "华东区 订单", "bad \xff utf8 \xc3", "emoji 😀"} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Append([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("Append(%q) = %s, want %s", s, got[1:], want)
		}
	}
}
