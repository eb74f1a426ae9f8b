package providers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/routebench/routebench/router"
)

// recorder is the outermost transport: it computes each request's redacted
// canonical form and cassette key, then replays, records or passes it on as
// the mode says. Only 2xx answers whose body is a JSON object are recorded: a 429, a 5xx or a bad key
// is a fact about that moment, not about the model, and must not be
// replayed forever.
type recorder struct {
	mode    CassetteMode
	store   *cassetteStore
	redact  *Redactor
	maxBody int64
	next    http.RoundTripper
}

func (t *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := drainRequest(req)
	if err != nil {
		return nil, err
	}
	ex := exchangeFrom(req.Context())
	if t.mode == CassettesOff && ex.bare {
		return t.next.RoundTrip(req)
	}
	canon := t.redact.JSON(canonicalJSON(body))
	model := ex.Model
	if model == "" {
		model = modelOf(body)
	}
	key := cassetteKey(ex.Fingerprint, model, canon)
	ex.noteRequest(string(canon), key)

	if t.mode == CassettesReplay || t.mode == CassettesAuto {
		entry, err := t.store.load(key)
		if err != nil {
			return nil, err
		}
		if entry != nil {
			ex.noteReplay()
			return entry.answer(canon).httpResponse(req), nil
		}
		if t.mode == CassettesReplay {
			return nil, fmt.Errorf("%w for %s %q (model %s, version fingerprint %q, key %s) in %s: record it with --cassettes record or auto",
				ErrCassetteMissing, ex.Kind, t.redact.String(ex.Label), model, ex.Fingerprint, key[:16], t.store.dir)
		}
	}

	resp, err := t.next.RoundTrip(req)
	if err != nil || t.mode == CassettesOff || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	data, err := readBody(resp.Body, t.maxBody)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read response of %s %s: %w", req.Method, req.URL.Path, err)
	}
	if !isJSONObject(data) {
		// No provider answers with anything but an object: a body of null,
		// an array or half an object is a broken moment, and replaying it
		// forever would turn one glitch into a permanent failure.
		resp.Body = io.NopCloser(bytes.NewReader(data))
		return resp, nil
	}
	entry := &cassetteEntry{
		Format:      cassetteFormat,
		Key:         key,
		Fingerprint: ex.Fingerprint,
		Model:       model,
		Label:       t.redact.String(ex.Label),
		// The only header kept is the content type, and it is redacted like
		// everything else; the path too, since some gateways put keys in it.
		Request:  cassetteRequest{Method: req.Method, Path: t.redact.String(req.URL.Path)},
		Response: cassetteResponse{Status: resp.StatusCode, ContentType: t.redact.String(resp.Header.Get("Content-Type"))},
	}
	// x-sensitive params leave the answer and the stored request; the
	// key stays that of the request as sent.
	answer, storedReq, masks, values := maskAnswer(t.redact.JSON(data), canon, ex.Sensitive)
	// The values the case expects leave the stored request and label too:
	// a model that did not return a secret still received it. The answer
	// keeps them, since a replay must give back what was answered.
	if extra := router.MaskValuesFrom(req.Context()); len(extra) > 0 {
		storedReq = []byte(router.MaskText(string(storedReq), extra))
		values = append(values, extra...)
	}
	entry.Masked = masks
	entry.Label = router.MaskText(entry.Label, values)
	entry.Request.Body, entry.Request.BodyText = jsonOrText(storedReq)
	entry.Response.Body, entry.Response.BodyText = jsonOrText(answer)
	saved, err := t.store.save(entry)
	if err != nil {
		return nil, err
	}
	return saved.answer(canon).httpResponse(req), nil
}

func isJSONObject(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}
