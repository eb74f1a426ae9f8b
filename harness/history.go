package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// DefaultHistoryPath is where run and gate append their summaries unless
// told otherwise (--history).
const DefaultHistoryPath = ".routebench/history.jsonl"

// HistoryFormat is the format version every history line carries.
const HistoryFormat = 1

// Commands a history entry can come from.
const (
	HistoryRun  = "run"
	HistoryGate = "gate"
)

// HeadlineMetrics are the metrics a history keeps: the ones a lead follows
// from run to run. Workflow and conversation rates join only when the
// run had such cases.
var HeadlineMetrics = []string{DecisionAccuracy, WrongExecutionRate, RefusalRecall, PolicyViolations,
	TaskSuccessRate, ConversationSuccessRate}

// maxHistoryLine bounds one history line: a real one is a few hundred
// bytes per version, so anything near this is not a history line.
const maxHistoryLine = 1 << 20

// HistoryEntry is one line of the history file: what one run or gate
// measured, and where and when.
type HistoryEntry struct {
	Format int `json:"format"`
	// Time is RFC 3339 in UTC, to the second.
	Time string `json:"time"`
	// Commit is `git rev-parse HEAD` of the working tree; "" outside git.
	Commit string `json:"commit"`
	// Command is HistoryRun or HistoryGate.
	Command  string           `json:"command"`
	Versions []HistoryVersion `json:"versions"`
}

// HistoryVersion is one version's headline metrics in one run.
type HistoryVersion struct {
	Name string `json:"name"`
	// Version is the version ID with its fingerprint ("v2@3f9a1c2e"), so
	// a prompt change shows as a new ID under the same name.
	Version string                   `json:"version"`
	Metrics map[string]HistoryMetric `json:"metrics"`
}

// HistoryMetric is a metric's value over the "all" group; Lo and Hi are
// its 95% interval when it has one.
type HistoryMetric struct {
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
	N     int      `json:"n"`
}

// NewHistoryEntry records s's headline metrics. at and commit are given,
// not looked up, so the same inputs give the same entry.
func NewHistoryEntry(command string, at time.Time, commit string, s Summary) HistoryEntry {
	e := HistoryEntry{Format: HistoryFormat, Time: at.UTC().Format(time.RFC3339), Commit: commit,
		Command: command, Versions: []HistoryVersion{}}
	for _, v := range s.Versions {
		hv := HistoryVersion{Name: v.Name, Version: v.Version, Metrics: map[string]HistoryMetric{}}
		all := v.Groups["all"]
		for _, name := range HeadlineMetrics {
			r, ok := all.Metrics[name]
			// A metric over no case has no value to follow.
			if !ok || r.N == 0 || math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
				continue
			}
			hv.Metrics[name] = HistoryMetric{Value: r.Value, Lo: r.Lo, Hi: r.Hi, N: r.N}
		}
		e.Versions = append(e.Versions, hv)
	}
	return e
}

// AppendHistory adds e as one line at the end of path, creating the file
// and its directory when needed. The line goes out in one write on a file
// opened for appending, so concurrent runs never interleave their lines
// and a reader sees whole lines only; earlier lines are never rewritten.
func AppendHistory(path string, e HistoryEntry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode history entry: %w", err)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("append history: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("append history: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("append history: %w", err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("append history: %s is not a regular file; give --history a file path", path)
	}
	// A last line cut off (a disk that filled up) must not swallow this
	// entry: start on a line of its own. The cut line stays and is named
	// when the history is read.
	if size := info.Size(); size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return fmt.Errorf("append history: %w", err)
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("append history %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("append history %s: %w", path, err)
	}
	return nil
}

// HistoryError is a history line that cannot be read. Line is 1-based; 0
// when the whole file is at fault.
type HistoryError struct {
	Path string
	Line int
	Err  error
}

func (e *HistoryError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *HistoryError) Unwrap() error { return e.Err }

// ReadHistory reads the last keep entries of path (all when keep <= 0),
// oldest first, and how many the file holds. It streams the file, so
// memory stays bounded by keep however long the history grows; a line
// longer than any entry, a line that is not an entry and an entry of
// another format are errors naming the line.
func ReadHistory(path string, keep int) (entries []HistoryEntry, total int, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read history: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, 0, &HistoryError{Path: path, Err: errors.New("not a regular file; give --history a file path")}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("read history: %w", err)
	}
	defer f.Close()
	return DecodeHistory(f, path, keep)
}

// DecodeHistory is ReadHistory over r; name is what errors call it.
func DecodeHistory(r io.Reader, name string, keep int) ([]HistoryEntry, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxHistoryLine)
	var entries []HistoryEntry
	total, lineNo := 0, 0
	for sc.Scan() {
		lineNo++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var e HistoryEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, 0, &HistoryError{Path: name, Line: lineNo,
				Err: fmt.Errorf("not a history entry: %v; fix or delete the line", err)}
		}
		if e.Format != HistoryFormat {
			return nil, 0, &HistoryError{Path: name, Line: lineNo,
				Err: fmt.Errorf("history format %d, this routebench reads format %d; delete the line or use the routebench that wrote it", e.Format, HistoryFormat)}
		}
		total++
		entries = append(entries, e)
		if keep > 0 && len(entries) > 2*keep {
			// Drop the oldest in batches: amortised O(1) per line.
			entries = slices.Clip(entries[len(entries)-keep:])
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line longer than %d bytes: not a history entry; fix or delete the line", maxHistoryLine)
		}
		return nil, 0, &HistoryError{Path: name, Line: lineNo + 1, Err: err}
	}
	if keep > 0 && len(entries) > keep {
		entries = entries[len(entries)-keep:]
	}
	return entries, total, nil
}

// Trend is each version's headline metrics across the runs of a history.
type Trend struct {
	// Runs are the entries the trend was drawn from (1-based positions in
	// the history file), First to Last; Total is how many the file holds.
	First    int            `json:"first"`
	Last     int            `json:"last"`
	Total    int            `json:"total"`
	Versions []VersionTrend `json:"versions"`
}

// VersionTrend is one version name across runs.
type VersionTrend struct {
	Name string `json:"name"`
	// IDs are the version IDs the name had, oldest first: more than one
	// means its prompt changed between runs.
	IDs     []string      `json:"ids"`
	Metrics []MetricTrend `json:"metrics"`
}

// MetricTrend is one metric of one version, oldest value first.
type MetricTrend struct {
	Metric string `json:"metric"`
	// Count is true for a count (policy_violations), false for a rate.
	Count  bool         `json:"count"`
	Points []TrendPoint `json:"points"`
	// Delta is the last value minus the one before; nil with one value.
	Delta *float64 `json:"delta"`
}

// TrendPoint is a metric's value in one run.
type TrendPoint struct {
	// Run is the entry's 1-based position in the history file.
	Run     int      `json:"run"`
	Time    string   `json:"time"`
	Commit  string   `json:"commit"`
	Command string   `json:"command"`
	Version string   `json:"version"`
	Value   float64  `json:"value"`
	Lo      *float64 `json:"lo,omitempty"`
	Hi      *float64 `json:"hi,omitempty"`
	N       int      `json:"n"`
}

// NewTrend follows every version name of entries, the last entries of a
// history holding total entries, keeping each metric's last values (all
// when last <= 0). Versions appear in the order of their first run, metrics
// in HeadlineMetrics order; a metric no run measured is left out.
func NewTrend(entries []HistoryEntry, total, last int) Trend {
	t := Trend{Total: total, Versions: []VersionTrend{}}
	if len(entries) == 0 {
		return t
	}
	t.First, t.Last = total-len(entries)+1, total
	index := map[string]int{}
	for i, e := range entries {
		run := t.First + i
		for _, v := range e.Versions {
			vi, ok := index[v.Name]
			if !ok {
				vi = len(t.Versions)
				index[v.Name] = vi
				t.Versions = append(t.Versions, VersionTrend{Name: v.Name, IDs: []string{}})
			}
			vt := &t.Versions[vi]
			if !slices.Contains(vt.IDs, v.Version) {
				vt.IDs = append(vt.IDs, v.Version)
			}
			for _, name := range HeadlineMetrics {
				m, ok := v.Metrics[name]
				if !ok {
					continue
				}
				mi := slices.IndexFunc(vt.Metrics, func(mt MetricTrend) bool { return mt.Metric == name })
				if mi < 0 {
					vt.Metrics = append(vt.Metrics, MetricTrend{Metric: name, Count: name == PolicyViolations})
					mi = len(vt.Metrics) - 1
				}
				vt.Metrics[mi].Points = append(vt.Metrics[mi].Points, TrendPoint{Run: run, Time: e.Time,
					Commit: e.Commit, Command: e.Command, Version: v.Version, Value: m.Value, Lo: m.Lo, Hi: m.Hi, N: m.N})
			}
		}
	}
	for vi := range t.Versions {
		vt := &t.Versions[vi]
		slices.SortStableFunc(vt.Metrics, func(a, b MetricTrend) int {
			return slices.Index(HeadlineMetrics, a.Metric) - slices.Index(HeadlineMetrics, b.Metric)
		})
		for mi := range vt.Metrics {
			mt := &vt.Metrics[mi]
			if last > 0 && len(mt.Points) > last {
				mt.Points = mt.Points[len(mt.Points)-last:]
			}
			if n := len(mt.Points); n >= 2 {
				d := mt.Points[n-1].Value - mt.Points[n-2].Value
				mt.Delta = &d
			}
		}
	}
	return t
}
