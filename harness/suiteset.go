package harness

import (
	"cmp"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/routebench/routebench/router/registry"
)

// CaseSource is a run's cases in load order. Key is what planning needs
// of a case (its id and hash) without the case; Each hands out the cases
// themselves, one after another.
type CaseSource interface {
	Len() int
	Key(i int) (id, hash string)
	// Each calls fn with every case in order, i counting from 0, and
	// stops at fn's first error, which it returns. A case is not changed
	// after, so fn may keep it.
	Each(fn func(i int, c *Case) error) error
}

// CaseList is cases in memory as a CaseSource.
type CaseList []Case

// Len implements CaseSource.
func (l CaseList) Len() int { return len(l) }

// Key implements CaseSource.
func (l CaseList) Key(i int) (id, hash string) { return l[i].ID, l[i].Hash }

// Each implements CaseSource.
func (l CaseList) Each(fn func(int, *Case) error) error {
	for i := range l {
		if err := fn(i, &l[i]); err != nil {
			return err
		}
	}
	return nil
}

// heldSuiteBytes is how many bytes of suite files OpenSuites loads once
// and holds. A loaded case takes about three times its YAML, so a large
// suite set held whole was most of a large run's memory.
var heldSuiteBytes int64 = 16 << 20

// OpenSuites checks suite files exactly as LoadSuites does (the same
// cases, the same problems in the same *registry.LoadError) and returns
// their cases as a CaseSource. Up to heldSuiteBytes of files are loaded
// once and held (a CaseList). A larger set is a *SuiteSet, which keeps
// only each case's id and hash (about 55 bytes a case) and parses the
// files again, one case at a time, each time its cases are walked: a run
// of a million cases holds the ones being routed, not a million.
func OpenSuites(paths []string, regs ...*registry.Registry) (CaseSource, error) {
	files, err := suiteFiles(paths)
	if err != nil {
		return nil, err
	}
	known := newSkillIndex(regs)
	if suiteBytes(files) <= heldSuiteBytes {
		cases, err := loadSuiteFiles(files, known)
		if err != nil {
			return nil, err
		}
		return CaseList(cases), nil
	}
	return openSuiteSet(files, known)
}

// suiteBytes is the files' total size; a file that cannot be read counts
// 0 (loading reports it).
func suiteBytes(files []string) int64 {
	var n int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			n += st.Size()
		}
	}
	return n
}

// SuiteSet is a large suite set, checked, whose cases are parsed from the
// files each time they are walked (see OpenSuites). It holds each case's
// id and hash; a walk that finds a case other than the one checked at its
// place (a file edited since) fails rather than run something unchecked.
type SuiteSet struct {
	files []string
	known skillIndex
	// whole are the files whose items did not all parse on their own:
	// every walk parses them whole from the start.
	whole map[string]bool
	// ids holds every case id, back to back; idEnd[i] is where case i's
	// ends. hashes holds each case hash as its 32 bytes.
	ids    string
	idEnd  []uint32
	hashes []byte
}

const hashBytes = 32

func openSuiteSet(files []string, known skillIndex) (*SuiteSet, error) {
	s := &SuiteSet{files: files, known: known}
	var ids []byte
	var bad error
	l := &suiteLoader{known: known, noIntern: true}
	l.emit = func(c *Case) {
		ids = append(ids, c.ID...)
		if len(ids) > int(^uint32(0)) && bad == nil {
			bad = fmt.Errorf("%s: more than 4 GiB of case ids; split the suites into several runs (--shard)", c.Pos)
		}
		s.idEnd = append(s.idEnd, uint32(len(ids)))
		var err error
		if s.hashes, err = hex.AppendDecode(s.hashes, []byte(c.Hash)); err != nil || len(s.hashes) != hashBytes*len(s.idEnd) {
			panic(fmt.Sprintf("case %s: hash %q is not sha256 hex", c.ID, c.Hash)) // caseHash makes every one
		}
	}
	l.retract = func(n int) {
		ids = ids[:s.idStart(n)]
		s.idEnd = s.idEnd[:n]
		s.hashes = s.hashes[:hashBytes*n]
	}
	// No file read ahead: a large set is many large files, and the next
	// one's bytes would wait in memory beside the index.
	err := l.load(files, 0)
	if bad != nil {
		return nil, bad
	}
	s.ids = string(ids)
	ids = nil
	s.whole = l.whole
	// Ids were not checked for duplicates on the way (that takes a map of
	// every id and where it was): they are here, and a load with a
	// problem or a duplicate is done again as LoadSuites does it, for the
	// same problems in the same words.
	if err != nil || s.hasDuplicateID() {
		return nil, checkSuitesExactly(files, known)
	}
	s.idEnd, s.hashes = slices.Clip(s.idEnd), slices.Clip(s.hashes)
	return s, nil
}

// checkSuitesExactly is LoadSuites's check without keeping the cases.
func checkSuitesExactly(files []string, known skillIndex) error {
	l := &suiteLoader{known: known, ids: map[string]registry.Pos{}, noIntern: true}
	l.emit = func(*Case) {}
	l.retract = func(int) {}
	if err := l.load(files, 1); err != nil {
		return err
	}
	return errors.New("load suites: a duplicate case id was found, then not found again; were the suite files being edited?")
}

func (s *SuiteSet) idStart(i int) uint32 {
	if i == 0 {
		return 0
	}
	return s.idEnd[i-1]
}

func (s *SuiteSet) id(i int) string { return s.ids[s.idStart(i):s.idEnd[i]] }

func (s *SuiteSet) hash(i int) []byte { return s.hashes[hashBytes*i : hashBytes*(i+1)] }

// hasDuplicateID sorts the case numbers by id (4 bytes a case) and looks
// at neighbours.
func (s *SuiteSet) hasDuplicateID() bool {
	order := make([]uint32, len(s.idEnd))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(s.id(int(a)), s.id(int(b))) })
	for k := 1; k < len(order); k++ {
		if s.id(int(order[k])) == s.id(int(order[k-1])) {
			return true
		}
	}
	return false
}

// Len implements CaseSource.
func (s *SuiteSet) Len() int { return len(s.idEnd) }

// Key implements CaseSource.
func (s *SuiteSet) Key(i int) (id, hash string) { return s.id(i), hex.EncodeToString(s.hash(i)) }

// errStopWalk ends a walk early without an error of its own.
var errStopWalk = errors.New("stop")

// Each implements CaseSource: it parses the files again (none read ahead,
// so memory holds one file's bytes and the cases fn keeps), checking each
// case against the id and hash it had when the set was opened.
func (s *SuiteSet) Each(fn func(int, *Case) error) error {
	var err error
	i := 0
	l := &suiteLoader{known: s.known, noIntern: true, whole: maps.Clone(s.whole)}
	l.emit = func(c *Case) {
		if i >= s.Len() || c.ID != s.id(i) || c.Hash != hex.EncodeToString(s.hash(i)) {
			err = s.changed(c.Pos.File, i)
		} else {
			err = fn(i, c)
			i++
		}
		l.stop = err != nil
	}
	loadErr := l.load(s.files, 0)
	switch {
	case err != nil:
		return err
	case loadErr != nil:
		return fmt.Errorf("suite files changed while the run read them; run again: %w", loadErr)
	case i != s.Len():
		return s.changed("", i)
	}
	return nil
}

// changed is the error of a walk that found, at case i, something other
// than what was checked.
func (s *SuiteSet) changed(file string, i int) error {
	where := "the suite files"
	if file != "" {
		where = file
	}
	if i >= s.Len() {
		return fmt.Errorf("%s changed while the run read them: there are more cases than the %d checked; run again", where, s.Len())
	}
	return fmt.Errorf("%s changed while the run read them: case %d is no longer %q as checked; run again", where, i+1, s.id(i))
}
