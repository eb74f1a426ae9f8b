package harness

import (
	"encoding/json"
	"testing"
)

// appendPlanCase writes what encoding/json writes, compact and indented,
// for ids and hashes of any bytes (invalid UTF-8 included) and any
// version lists.
func TestAppendPlanCaseMatchesEncodingJSON(t *testing.T) {
	for _, pc := range []PlanCase{
		{}, {ID: "a-1", Hash: "h1"}, {ID: `q "x" <b>&`, Hash: "\xff\xfe", Versions: []int{2}},
		{ID: "订单\u2028\t", Hash: "h", Versions: []int{0, 1, 12}}, {ID: "v", Versions: []int{}}, {ID: "s", Hash: "h", Seq: 41}, {ID: "t", Versions: []int{1}, Seq: -3},
	} {
		want, err := json.Marshal(&pc)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendPlanCase([]byte("x"), &pc, "", ""); string(got) != "x"+string(want) {
			t.Errorf("compact %+v:\n got %s\nwant %s", pc, got[1:], want)
		}
		want, err = json.MarshalIndent(&pc, "    ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if got := appendPlanCase(nil, &pc, "    ", "  "); string(got) != string(want) {
			t.Errorf("indented %+v:\n got %s\nwant %s", pc, got, want)
		}
	}
}
