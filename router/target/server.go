package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// DefaultMaxRequestBytes bounds a request body `routebench serve` reads.
// A request is a few kilobytes; tools of a large per-case skill set stay
// well below this.
const DefaultMaxRequestBytes = 16 << 20

// ShutdownGrace is how long Serve lets requests in flight finish after its
// context ends.
const ShutdownGrace = 30 * time.Second

// Error codes of the JSON errors Server answers.
const (
	CodeInvalidRequest   = "invalid_request"    // 400: not JSON, or a field that is wrong
	CodeMethodNotAllowed = "method_not_allowed" // 405
	CodeNotFound         = "not_found"          // 404
	CodeTooLarge         = "request_too_large"  // 413
	CodeUnavailable      = "unavailable"        // 503: the server is stopping
	CodeInternal         = "internal"           // 500
)

// Routing is what a Server serves: routebench's own router (or any router
// with its Route).
type Routing interface {
	Route(ctx context.Context, req router.Request) (router.Decision, error)
}

// Server exposes a router over HTTP with DESIGN §13's wire formats:
// POST /route (request JSON in, Decision JSON out), GET /healthz and GET
// /version. Every error is JSON: {"error": {"code", "message"}}, with
// "field" when one field of the request is wrong.
type Server struct {
	Router  Routing
	Version *registry.Version
	// Judge and Embedder are shown by /version.
	Judge, Embedder string
	// MaxRequestBytes bounds a request body (default
	// DefaultMaxRequestBytes); a larger one is answered 413.
	MaxRequestBytes int64

	tools router.ToolsCache
}

// VersionInfo is GET /version's answer.
type VersionInfo struct {
	Version     string `json:"version"`
	Name        string `json:"name"`
	Fingerprint string `json:"fingerprint"`
	Dir         string `json:"dir"`
	Judge       string `json:"judge"`
	Embedder    string `json:"embedder"`
}

// Handler routes the three endpoints; anything else is 404.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/route", s.only(http.MethodPost, s.route))
	mux.HandleFunc("/healthz", s.only(http.MethodGet, func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}))
	mux.HandleFunc("/version", s.only(http.MethodGet, func(w http.ResponseWriter, _ *http.Request) {
		v := s.Version
		writeJSON(w, http.StatusOK, VersionInfo{Version: v.ID(), Name: v.Name, Fingerprint: v.Fingerprint, Dir: v.Dir, Judge: s.Judge, Embedder: s.Embedder})
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, CodeNotFound, "", fmt.Sprintf("no endpoint %s; use POST /route, GET /healthz or GET /version", r.URL.Path))
	})
	return mux
}

// only answers 405 (naming the allowed method) to any other method. GET
// endpoints answer HEAD too, as net/http does for GET.
func (s *Server) only(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed, "", fmt.Sprintf("%s %s is not served; use %s", r.Method, r.URL.Path, method))
			return
		}
		h(w, r)
	}
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	limit := s.MaxRequestBytes
	if limit <= 0 {
		limit = DefaultMaxRequestBytes
	}
	if r.ContentLength > limit {
		writeError(w, http.StatusRequestEntityTooLarge, CodeTooLarge, "", fmt.Sprintf("the request is %d bytes; at most %d are read", r.ContentLength, limit))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, CodeTooLarge, "", fmt.Sprintf("the request is over %d bytes, the most that is read", limit))
			return
		}
		writeError(w, http.StatusBadRequest, CodeInvalidRequest, "", fmt.Sprintf("the request body could not be read: %v", err))
		return
	}
	req, err := router.DecodeRequest(body, &s.tools)
	if err != nil {
		var we *router.WireError
		field := ""
		if errors.As(err, &we) {
			field = we.Field
		}
		writeError(w, http.StatusBadRequest, CodeInvalidRequest, field, "request: "+err.Error())
		return
	}
	d, err := s.Router.Route(r.Context(), req)
	if err != nil {
		if r.Context().Err() != nil {
			writeError(w, http.StatusServiceUnavailable, CodeUnavailable, "", "the request was cancelled before it was routed")
			return
		}
		writeError(w, http.StatusInternalServerError, CodeInternal, "", "route: "+err.Error())
		return
	}
	data, err := router.EncodeDecision(d)
	if err != nil {
		writeError(w, http.StatusInternalServerError, CodeInternal, "", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(data, '\n'))
}

// apiError is the body of every error answer.
type apiError struct {
	Error apiErrorBody `json:"error"`
}

type apiErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
}

func writeError(w http.ResponseWriter, status int, code, field, msg string) {
	writeJSON(w, status, apiError{Error: apiErrorBody{Code: code, Message: msg, Field: field}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// Serve answers on l until ctx ends, then stops taking connections and
// lets the requests in flight finish (up to ShutdownGrace) before it
// returns. It returns nil after such a graceful stop.
func Serve(ctx context.Context, l net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	failed := make(chan error, 1)
	go func() { failed <- srv.Serve(l) }()
	select {
	case err := <-failed:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		return fmt.Errorf("serve: stop: %w", err)
	}
	if err := <-failed; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
