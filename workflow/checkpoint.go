package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/routebench/routebench/internal/inputfile"
)

// CheckpointStore keeps what a run must not lose: checkpoints by (run,
// node, input hash), raw outputs by ref, and the ledger of executed
// idempotency keys. Re-running a task with the same store resumes it.
// Implementations must be safe for concurrent use.
type CheckpointStore interface {
	Checkpoint(run, node, inputHash string) (Checkpoint, bool, error)
	SaveCheckpoint(run string, cp Checkpoint) error
	Output(ref string) (json.RawMessage, bool, error)
	SaveOutput(ref string, raw json.RawMessage) error
	// Executed returns the success receipt of a key already executed.
	Executed(key string) (Receipt, bool, error)
	SaveExecuted(key string, r Receipt) error
}

// storeData is the whole state of a store; FileStore writes it as JSON.
type storeData struct {
	Checkpoints map[string]Checkpoint      `json:"checkpoints"`
	Outputs     map[string]json.RawMessage `json:"outputs"`
	Executed    map[string]Receipt         `json:"executed"`
}

func newStoreData() *storeData {
	return &storeData{Checkpoints: map[string]Checkpoint{}, Outputs: map[string]json.RawMessage{}, Executed: map[string]Receipt{}}
}

func cpKey(run, node, inputHash string) string { return run + "\x00" + node + "\x00" + inputHash }

// MemoryStore is a CheckpointStore in memory.
type MemoryStore struct {
	mu   sync.Mutex
	data *storeData
	// persist, when set, is called with the lock held after each change.
	persist func(*storeData) error
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore { return &MemoryStore{data: newStoreData()} }

func (s *MemoryStore) Checkpoint(run, node, inputHash string) (Checkpoint, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cp, ok := s.data.Checkpoints[cpKey(run, node, inputHash)]
	return cp, ok, nil
}

func (s *MemoryStore) SaveCheckpoint(run string, cp Checkpoint) error {
	return s.change(func(d *storeData) { d.Checkpoints[cpKey(run, cp.Node, cp.InputHash)] = cp })
}

func (s *MemoryStore) Output(ref string) (json.RawMessage, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, ok := s.data.Outputs[ref]
	return raw, ok, nil
}

func (s *MemoryStore) SaveOutput(ref string, raw json.RawMessage) error {
	return s.change(func(d *storeData) { d.Outputs[ref] = append(json.RawMessage(nil), raw...) })
}

func (s *MemoryStore) Executed(key string) (Receipt, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.data.Executed[key]
	return r, ok, nil
}

func (s *MemoryStore) SaveExecuted(key string, r Receipt) error {
	return s.change(func(d *storeData) { d.Executed[key] = r })
}

func (s *MemoryStore) change(fn func(*storeData)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.data)
	if s.persist != nil {
		return s.persist(s.data)
	}
	return nil
}

// FileStore is a MemoryStore saved to one JSON file after every change
// (written to a temporary file and renamed, so a crash leaves the old or
// the new state, never half of one).
type FileStore struct {
	MemoryStore
	path string
}

// OpenFileStore loads path, or starts empty when it does not exist.
func OpenFileStore(path string) (*FileStore, error) {
	fsStore := &FileStore{path: path}
	fsStore.data = newStoreData()
	data, err := inputfile.ReadFile(path, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("couldn't open checkpoint store %s: %w", path, err)
	default:
		if err := json.Unmarshal(data, fsStore.data); err != nil {
			return nil, fmt.Errorf("couldn't read checkpoint store %s: %w; delete it to start over", path, err)
		}
		if fsStore.data.Checkpoints == nil || fsStore.data.Outputs == nil || fsStore.data.Executed == nil {
			fresh := newStoreData()
			for k, v := range fsStore.data.Checkpoints {
				fresh.Checkpoints[k] = v
			}
			for k, v := range fsStore.data.Outputs {
				fresh.Outputs[k] = v
			}
			for k, v := range fsStore.data.Executed {
				fresh.Executed[k] = v
			}
			fsStore.data = fresh
		}
	}
	fsStore.persist = fsStore.write
	return fsStore, nil
}

func (s *FileStore) write(d *storeData) error {
	data, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		return fmt.Errorf("couldn't encode checkpoint store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".checkpoints-*.json")
	if err != nil {
		return fmt.Errorf("couldn't write checkpoint store %s: %w", s.path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("couldn't write checkpoint store %s: %w", s.path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("couldn't write checkpoint store %s: %w", s.path, err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("couldn't write checkpoint store %s: %w", s.path, err)
	}
	return nil
}
