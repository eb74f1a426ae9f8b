package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/routebench/routebench/internal/inputfile"
)

// readInput reads a data file whole through the bounded reader (regular
// files only, at most 64 MiB) and checks it is UTF-8 text; a byte order
// mark at the start is dropped, as spreadsheet exports write one.
func readInput(path string) ([]byte, error) {
	data, err := inputfile.ReadFile(path, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if err := inputfile.CheckText(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return bytes.TrimPrefix(data, []byte("\uFEFF")), nil
}

// decodeJSON decodes a whole JSON document, naming the line and column of a
// syntax or type error.
func decodeJSON(path string, data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return fmt.Errorf("%s:%d:%d: not valid JSON: %w", path, line, col, err)
	case errors.As(err, &typ):
		line, col := position(data, typ.Offset)
		field := typ.Field
		if field == "" {
			field = "the value"
		}
		return fmt.Errorf("%s:%d:%d: %s is a JSON %s, want %s", path, line, col, field, typ.Value, jsonTypeName(typ.Type.Kind().String()))
	}
	return fmt.Errorf("%s: %w", path, err)
}

// jsonTypeName names a Go kind the way a JSON author thinks of it.
func jsonTypeName(kind string) string {
	switch kind {
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "interface":
		return "a value"
	}
	return "a number"
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// jsonElement is one element of a JSON array and the line it starts on.
type jsonElement struct {
	Raw  json.RawMessage
	Line int
}

// arrayAt returns the elements of the JSON array at a key path (no keys:
// the root), each with its line, so errors about one element can name
// it; found is false when there is no array there. data must be valid JSON.
func arrayAt(data []byte, keys ...string) (elems []jsonElement, found bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	for _, want := range keys {
		if !openObject(dec) {
			return nil, false, nil
		}
		for {
			if !dec.More() {
				return nil, false, nil
			}
			tok, err := dec.Token()
			if err != nil {
				return nil, false, err
			}
			if tok == want {
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, false, err
			}
		}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, false, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, false, nil
	}
	for dec.More() {
		off := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false, err
		}
		line, _ := position(data, skipSeparators(data, off))
		elems = append(elems, jsonElement{Raw: raw, Line: line})
	}
	return elems, true, nil
}

func openObject(dec *json.Decoder) bool {
	tok, err := dec.Token()
	d, ok := tok.(json.Delim)
	return err == nil && ok && d == '{'
}

// skipSeparators moves an offset past whitespace and a comma, to where the
// next value starts.
func skipSeparators(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
		default:
			return off
		}
	}
	return off
}
