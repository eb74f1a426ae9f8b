package compare

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/routebench/routebench/harness"
	"github.com/routebench/routebench/internal/spool"
	"github.com/routebench/routebench/router"
)

// flipTerms keeps, for every result as it is collected, what a Flip shows
// of it when it is a comparison's head (pendingFlip.fill): its tags, its
// input cut to InputLimit runes and its expected action and skill. So
// Series fills its flips without reading any result back. They are kept
// encoded in a spool (memory up to flipTermsInMemory, then an unlinked
// temporary file), with 4 bytes a result in memory (spool.Records).
type flipTerms struct {
	recs *spool.Records
	buf  []byte
}

// flipTermsInMemory is how many bytes of flip terms stay in memory.
var flipTermsInMemory = 256 << 10

var errDamagedFlipTerms = errors.New("keep flip-terms: a damaged record")

// put keeps the terms of the result at stream position i.
func (t *flipTerms) put(i int, r *harness.Result) {
	if t.recs == nil {
		t.recs = spool.NewRecords("flip-terms", flipTermsInMemory)
	}
	b := t.buf[:0]
	if r.Tags == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(r.Tags)))
		for _, tag := range r.Tags {
			b = appendFlipString(b, tag)
		}
	}
	b = appendFlipString(b, truncate(r.Input, InputLimit))
	b = appendFlipString(b, string(r.Expect.Action))
	b = appendFlipString(b, r.Expect.Skill)
	t.buf = b
	t.recs.Put(i, b) // a failed write fails the reader, which fill reports
}

func appendFlipString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// fill fills each pending flip from its head's terms, as
// pendingFlip.fill does from the head result.
func (t *flipTerms) fill(pending []pendingFlip) error {
	if len(pending) == 0 {
		return nil
	}
	if t.recs == nil {
		return fmt.Errorf("keep flip-terms: no terms of result %d", pending[0].pos)
	}
	r, err := t.recs.Reader()
	if err != nil {
		return err
	}
	// A batch at a time (spool.ReadBatch): the terms of flips that came
	// close together in the stream are read together.
	var positions []int
	var buf []byte
	var recs [][]byte
	for from := 0; from < len(pending); from += flipBatch {
		batch := pending[from:min(from+flipBatch, len(pending))]
		positions = positions[:0]
		for _, p := range batch {
			positions = append(positions, p.pos)
		}
		if buf, recs, err = r.ReadBatch(positions, buf, recs); err != nil {
			return err
		}
		for k, p := range batch {
			if err := decodeFlipTerms(recs[k], p.flip); err != nil {
				return err
			}
		}
	}
	return nil
}

// flipBatch is how many flips' terms fill reads at a time.
const flipBatch = 1024

// decodeFlipTerms sets f's head terms from a record put wrote.
func decodeFlipTerms(b []byte, f *Flip) error {
	bad := false
	str := func() string {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			bad, b = true, nil
			return ""
		}
		s := string(b[w : w+int(n)])
		b = b[w+int(n):]
		return s
	}
	if len(b) == 0 {
		return errDamagedFlipTerms
	}
	hasTags := b[0] == 1
	b = b[1:]
	var tags []string
	if hasTags {
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)) {
			return errDamagedFlipTerms
		}
		b = b[w:]
		tags = make([]string, 0, n)
		for range n {
			tags = append(tags, str())
		}
	}
	input, action, skill := str(), str(), str()
	if bad || len(b) != 0 {
		return errDamagedFlipTerms
	}
	f.Tags, f.Input, f.Expect, f.ExpectSkill = tags, input, router.Action(action), skill
	return nil
}
