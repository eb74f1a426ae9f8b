package compare

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/routebench/routebench/internal/spool"
	"github.com/routebench/routebench/router"
)

// recordSpill keeps a SeriesCollector's records encoded, out of the way
// until a comparison needs them: in memory while they are few, then in an
// unlinked temporary file (spool). A run of one version compares nothing,
// so its records are never read back; a run of several reads back two
// versions' records at a time. Each record is its version's and its
// words' numbers (see words) and its id, hash, position and unit terms,
// as varints.
type recordSpill struct {
	spool *spool.Spool
	buf   []byte
}

// spillInMemory is how many encoded bytes stay in memory before the
// records go to a file (tens of thousands of records).
var spillInMemory = 4 << 20

// put appends one record; version and the word numbers come from words.
func (s *recordSpill) put(version uint64, rec *record, word func(string) uint64) {
	if s.spool == nil {
		s.spool = spool.New("pairs", spillInMemory)
	}
	b := binary.AppendUvarint(s.buf[:0], version)
	b = binary.AppendUvarint(b, uint64(rec.pos))
	pass := uint64(0)
	if rec.pass {
		pass = 1
	}
	b = binary.AppendUvarint(b, pass)
	for _, w := range []string{rec.suite, rec.failure, rec.skill, string(rec.action)} {
		b = binary.AppendUvarint(b, word(w))
	}
	for _, str := range []string{rec.id, rec.hash} {
		b = binary.AppendUvarint(b, uint64(len(str)))
		b = append(b, str...)
	}
	b = binary.AppendUvarint(b, uint64(len(rec.units)))
	for _, u := range rec.units {
		b = binary.AppendUvarint(b, u.has)
		b = binary.AppendUvarint(b, u.val)
	}
	s.buf = b
	s.spool.Write(b) // a failed write fails Reader, which each reports
}

// each decodes every record in order and calls fn with its version's
// number (rec.version is left to the caller); a record's strings are the
// words' (shared) but for id and hash.
func (s *recordSpill) each(words []string, fn func(version uint64, rec record)) error {
	if s.spool == nil {
		return nil
	}
	r, err := s.spool.Reader()
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		version, err := binary.ReadUvarint(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		d := &spillDecoder{r: br, err: err, words: words}
		var rec record
		rec.pos = int(d.uvarint())
		rec.pass = d.uvarint() == 1
		rec.suite, rec.failure, rec.skill = d.word(), d.word(), d.word()
		rec.action = router.Action(d.word())
		rec.id, rec.hash = d.str(), d.str()
		if n := d.uvarint(); n > 0 && d.err == nil {
			rec.units = make([]unitTerms, n)
			for i := range rec.units {
				rec.units[i] = unitTerms{has: d.uvarint(), val: d.uvarint()}
			}
		}
		if d.err != nil {
			return fmt.Errorf("read paired records back: %w", d.err)
		}
		fn(version, rec)
	}
}

// spillDecoder reads one record's fields, keeping the first error.
type spillDecoder struct {
	r     *bufio.Reader
	err   error
	words []string
}

func (d *spillDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(d.r)
	if err != nil {
		d.err = io.ErrUnexpectedEOF
	}
	return v
}

func (d *spillDecoder) word() string {
	i := d.uvarint()
	if d.err != nil || i >= uint64(len(d.words)) {
		if d.err == nil {
			d.err = errors.New("a word number out of range")
		}
		return ""
	}
	return d.words[i]
}

func (d *spillDecoder) str() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		d.err = io.ErrUnexpectedEOF
	}
	return string(b)
}
