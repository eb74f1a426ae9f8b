package providers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
)

// ErrCassetteMissing is wrapped by the error a replay returns when the store
// holds no answer for a request.
var ErrCassetteMissing = errors.New("no cassette entry")

// cassetteFormat names the file layout; it is part of every key so a new
// layout never replays an old file by accident.
const cassetteFormat = "routebench-cassette/1"

// cassetteEntry is one recorded model exchange, one pretty-printed JSON file
// per exchange. Nothing in it depends on time or order, so recording the
// same exchange twice writes the same bytes. Headers are never stored:
// that is where keys travel.
type cassetteEntry struct {
	Format      string           `json:"format"`
	Key         string           `json:"key"`
	Fingerprint string           `json:"fingerprint,omitempty"`
	Model       string           `json:"model"`
	Label       string           `json:"label,omitempty"`
	Request     cassetteRequest  `json:"request"`
	Response    cassetteResponse `json:"response"`
	// Masked lists the x-sensitive values masked in Response, in the
	// order a replay puts them back.
	Masked []cassetteMask `json:"masked,omitempty"`
}

// answer is the stored response with masked values put back from the
// request being answered (canon, the bytes the key was computed from).
func (e *cassetteEntry) answer(canon []byte) cassetteResponse {
	r := e.Response
	if len(e.Masked) > 0 && len(r.Body) > 0 {
		r.Body = json.RawMessage(restoreAnswer(r.Body, canon, e.Masked))
	}
	return r
}

type cassetteRequest struct {
	Method   string          `json:"method"`
	Path     string          `json:"path"`
	Body     json.RawMessage `json:"body,omitempty"`
	BodyText string          `json:"body_text,omitempty"`
}

type cassetteResponse struct {
	Status      int             `json:"status"`
	ContentType string          `json:"content_type,omitempty"`
	Body        json.RawMessage `json:"body,omitempty"`
	BodyText    string          `json:"body_text,omitempty"`
}

// canonicalJSON re-encodes a JSON body with sorted keys, no HTML escaping
// and numbers as written, so equal requests hash equally whatever the SDK's
// field order. Bodies that are not JSON are returned unchanged.
func canonicalJSON(body []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return body
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return body
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// cassetteKey is the content hash an exchange is stored under: the version
// fingerprint, the model and the redacted canonical request body. The base
// URL and headers are left out so a recording made against one server
// replays anywhere.
func cassetteKey(fingerprint, model string, canonicalBody []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n", cassetteFormat, fingerprint, model)
	h.Write(canonicalBody)
	return hex.EncodeToString(h.Sum(nil))
}

// modelOf reads the "model" field of a request body, for callers that did
// not say which model they use.
func modelOf(body []byte) string {
	var m struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &m)
	return m.Model
}

// jsonOrText stores data as JSON when it is JSON (readable in diffs) and as
// text otherwise (a truncated body is recorded as it came).
func jsonOrText(data []byte) (json.RawMessage, string) {
	if len(bytes.TrimSpace(data)) > 0 && json.Valid(data) {
		return json.RawMessage(data), ""
	}
	return nil, string(data)
}

func (r cassetteResponse) body() []byte {
	if len(r.Body) > 0 {
		return []byte(r.Body)
	}
	return []byte(r.BodyText)
}

func (r cassetteResponse) httpResponse(req *http.Request) *http.Response {
	body := r.body()
	h := http.Header{}
	if r.ContentType != "" {
		h.Set("Content-Type", r.ContentType)
	}
	return &http.Response{
		Status:        strconv.Itoa(r.Status) + " " + http.StatusText(r.Status),
		StatusCode:    r.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// ErrSecretInCassette is wrapped when a cassette is not written because
// a secret survived redaction.
var ErrSecretInCassette = errors.New("secret in cassette")

// cassetteStore is a directory of <key>.json files. Every file is scanned
// for secrets with redact before it is written.
type cassetteStore struct {
	dir    string
	redact *Redactor
	// maxFile bounds a cassette read: a response within the body limit and
	// its request fit many times over.
	maxFile int64
}

func (s *cassetteStore) path(key string) string { return filepath.Join(s.dir, key+".json") }

// load returns the entry for key, or nil when there is none.
func (s *cassetteStore) load(key string) (*cassetteEntry, error) {
	f, err := os.Open(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cassette: %w", err)
	}
	defer f.Close()
	data, err := readBody(f, s.maxFile)
	if err != nil {
		return nil, fmt.Errorf("read cassette %s: %w", s.path(key), err)
	}
	return decodeEntry(s.path(key), key, data)
}

func decodeEntry(file, key string, data []byte) (*cassetteEntry, error) {
	var e cassetteEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("cassette %s: %w; delete it and record again", file, err)
	}
	if e.Format != cassetteFormat || e.Key != key {
		return nil, fmt.Errorf("cassette %s: holds format %q key %q, want %q key %q; delete it and record again", file, e.Format, e.Key, cassetteFormat, key)
	}
	return &e, nil
}

// save writes the entry atomically (temp file and rename, so concurrent
// recorders and interrupted runs never leave half a file) and returns the
// entry as read back from those bytes: a recording run then hands the SDK
// exactly what a replay will.
func (s *cassetteStore) save(e *cassetteEntry) (*cassetteEntry, error) {
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode cassette: %w", err)
	}
	data = append(data, '\n')
	// The last check before bytes reach the disk: redaction ran on the
	// parts, this scans the whole, as written and as decoded.
	if where, found := s.redact.leak(data); found {
		return nil, fmt.Errorf("cassette %s not written: a secret survives redaction in %s: %w; add a secret pattern that removes it whole, or keep it out of the case",
			s.path(e.Key), where, ErrSecretInCassette)
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return nil, fmt.Errorf("cassette dir: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".tmp-"+e.Key[:12]+"-*")
	if err != nil {
		return nil, fmt.Errorf("write cassette: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("write cassette %s: %w", s.path(e.Key), errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), s.path(e.Key)); err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("write cassette: %w", err)
	}
	return decodeEntry(s.path(e.Key), e.Key, data)
}
