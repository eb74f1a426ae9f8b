package providers

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/routebench/routebench/router"
)

// cassetteMask is one x-sensitive param value masked as "***" in a stored
// answer (DESIGN §2). At, when set, is where the value stands in the
// request body that was sent: byte offsets into its canonical redacted
// form, which a replay of the same key sends again byte for byte, so the
// value is put back without ever being stored. A value the request does
// not hold verbatim (the model normalised it) has no At and replays as
// "***".
type cassetteMask struct {
	Param  string `json:"param"`
	At     []int  `json:"at,omitempty"`
	Number bool   `json:"number,omitempty"`
}

// maskAnswer masks the values of sensitive params in a response body (the
// model's answer, inside its provider envelope) and returns the request
// body to store with the same values masked wherever the user's text
// holds them (values of at least router.MinMaskedTextRunes), and the
// values, for masking the entry's label. canon is the canonical request
// body the key was computed from; it is not changed.
func maskAnswer(resp, canon []byte, sensitive map[string]bool) (maskedResp, storedReq []byte, masks []cassetteMask, values []string) {
	if len(sensitive) == 0 {
		return resp, canon, nil, nil
	}
	maskedResp, changed := router.RewriteJSONValues(resp, sensitive, func(key string, v any) any {
		if v == router.Masked {
			return v
		}
		m := cassetteMask{Param: key}
		text, isString := v.(string)
		if !isString {
			b, _ := json.Marshal(v)
			text, m.Number = string(b), true
		}
		values = append(values, text)
		if at := bytes.Index(canon, jsonStringBody(text)); at >= 0 && text != "" {
			m.At = []int{at, at + len(jsonStringBody(text))}
		}
		masks = append(masks, m)
		return router.Masked
	})
	if !changed {
		return resp, canon, nil, nil
	}
	return maskedResp, []byte(router.MaskText(string(canon), values)), masks, values
}

// restoreAnswer puts masked values back into a stored response body from
// the request being replayed (canon, the same bytes as when recorded).
func restoreAnswer(resp, canon []byte, masks []cassetteMask) []byte {
	if len(masks) == 0 {
		return resp
	}
	names := map[string]bool{}
	for _, m := range masks {
		names[m.Param] = true
	}
	next := 0
	out, _ := router.RewriteJSONValues(resp, names, func(key string, v any) any {
		if v != router.Masked || next >= len(masks) || masks[next].Param != key {
			return v
		}
		m := masks[next]
		next++
		if len(m.At) != 2 || m.At[0] < 0 || m.At[1] > len(canon) || m.At[0] > m.At[1] {
			return v
		}
		var text string
		if err := json.Unmarshal(append(append([]byte{'"'}, canon[m.At[0]:m.At[1]]...), '"'), &text); err != nil {
			return v
		}
		if m.Number {
			if f, err := strconv.ParseFloat(text, 64); err == nil {
				return f
			}
			return v
		}
		return text
	})
	return out
}

// jsonStringBody is text as it appears inside a JSON string of the
// canonical body (no HTML escaping), without the quotes.
func jsonStringBody(text string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(text)
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return b[1 : len(b)-1]
}
