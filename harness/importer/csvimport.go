package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// IntentOptions configures the Rasa and CSV imports.
type IntentOptions struct {
	// OOSLabels become refusal cases, not skills (DefaultOOSLabels).
	OOSLabels []string
	// EvalSplits are the splits written as suites; "val" when empty.
	EvalSplits []string
	// Bands is the operating point written into version.yaml.
	Bands BandsDoc
}

func (o IntentOptions) withDefaults() IntentOptions {
	if o.OOSLabels == nil {
		o.OOSLabels = DefaultOOSLabels
	}
	if len(o.EvalSplits) == 0 {
		o.EvalSplits = []string{"val"}
	}
	if o.Bands == (BandsDoc{}) {
		o.Bands = CLINCBands
	}
	return o
}

// csvColumns are the columns a CSV intent file may have; text and label
// are required.
var csvColumns = []string{"text", "label", "split"}

// ImportCSV reads a CSV file (RFC 4180) with a header naming its columns
// text, label and optionally split, in any order: one skill per label.
// Without a split column the importer carves val from each label.
func ImportCSV(path, out string, opt IntentOptions) (*Report, error) {
	opt = opt.withDefaults()
	data, err := readInput(path)
	if err != nil {
		return nil, err
	}
	items, ignored, err := readIntentCSV(path, data)
	if err != nil {
		return nil, err
	}
	r := &Report{Source: "csv " + path}
	for _, col := range ignored {
		r.note("column %q ignored: only text, label and split are read", col)
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	err = writeIntentSet(r, out, intentSet{
		source:      "csv",
		versionName: versionName("csv-" + base),
		description: fmt.Sprintf("intents imported from %s (one skill per label)", filepath.Base(path)),
		items:       items,
		oosLabels:   opt.OOSLabels,
		evalSplits:  opt.EvalSplits,
		bands:       opt.Bands,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// readIntentCSV reads the rows; every problem names its line.
func readIntentCSV(path string, data []byte) (items []Utterance, ignored []string, err error) {
	rd := csv.NewReader(bytes.NewReader(data))
	header, err := rd.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("%s: empty; want a header line text,label[,split] and a row per example", path)
	}
	if err != nil {
		return nil, nil, csvError(path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(csvColumns, name) {
			ignored = append(ignored, h)
			continue
		}
		if _, dup := col[name]; dup {
			return nil, nil, fmt.Errorf("%s:1: column %q appears twice in the header; keep one", path, name)
		}
		col[name] = i
	}
	for _, need := range []string{"text", "label"} {
		if _, ok := col[need]; !ok {
			return nil, nil, fmt.Errorf("%s:1: the header has no %q column (it has %s); want text,label[,split]", path, need, strings.Join(header, ","))
		}
	}
	split, hasSplit := col["split"]
	for {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, csvError(path, err)
		}
		line, _ := rd.FieldPos(0)
		u := Utterance{Text: strings.TrimSpace(rec[col["text"]]), Label: strings.TrimSpace(rec[col["label"]]), Where: fmt.Sprintf("%s:%d", path, line)}
		switch {
		case u.Text == "":
			return nil, nil, fmt.Errorf("%s:%d: text is empty; every row needs an example text", path, line)
		case u.Label == "":
			return nil, nil, fmt.Errorf("%s:%d: label is empty; every row needs the intent it shows", path, line)
		}
		if hasSplit {
			u.Split = strings.ToLower(strings.TrimSpace(rec[split]))
			if u.Split == "" {
				return nil, nil, fmt.Errorf("%s:%d: split is empty; give every row a split (train, val, test) or drop the column to have val carved", path, line)
			}
		}
		items = append(items, u)
	}
	if len(items) == 0 {
		return nil, nil, fmt.Errorf("%s: a header but no rows", path)
	}
	return items, ignored, nil
}

// csvError names the line of a CSV syntax error and what to change.
func csvError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		hint := "quote a field holding commas, quotes or line breaks, doubling quotes inside it (RFC 4180)"
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			hint = "give every row as many fields as the header"
		}
		return fmt.Errorf("%s:%d:%d: %v; %s", path, pe.Line, pe.Column, pe.Err, hint)
	}
	return fmt.Errorf("%s: %w", path, err)
}
