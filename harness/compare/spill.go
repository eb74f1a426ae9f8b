package compare

import (
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
// versions' records at a time. Each record is its size, then its
// version's and its words' numbers (see words) and its id, hash,
// position and unit terms, as varints: the size lets a reader step over
// the records of versions it does not want.
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
	// The record after room for its size (at most binary.MaxVarintLen32
	// bytes), which is put in front of it once known.
	const room = binary.MaxVarintLen32
	b := append(s.buf[:0], make([]byte, room)...)
	b = binary.AppendUvarint(b, version)
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
	var size [room]byte
	n := binary.PutUvarint(size[:], uint64(len(b)-room))
	start := room - n
	copy(b[start:], size[:n])
	s.buf = b
	s.spool.Write(b[start:]) // a failed write fails Reader, which each reports
}

// each decodes, in order, every record of the versions want takes and
// calls fn with its version's number (rec.version is left to the
// caller); a record's strings are the words' (shared) but for id and
// hash.
func (s *recordSpill) each(words []string, want func(version uint64) bool, fn func(version uint64, rec record)) error {
	if s.spool == nil {
		return nil
	}
	r, err := s.spool.Reader()
	if err != nil {
		return err
	}
	sr := spillReader{r: r, buf: make([]byte, 0, 1<<16)}
	// Records' units are cut from slabs: one allocation for many.
	var slab []unitTerms
	for {
		size, ok, err := sr.size()
		if err != nil {
			return fmt.Errorf("read paired records back: %w", err)
		}
		if !ok {
			return nil
		}
		b, err := sr.next(size)
		if err != nil {
			return fmt.Errorf("read paired records back: %w", err)
		}
		d := &spillDecoder{b: b, words: words}
		version := d.uvarint()
		if d.err == nil && !want(version) {
			continue
		}
		var rec record
		rec.pos = int(d.uvarint())
		rec.pass = d.uvarint() == 1
		rec.suite, rec.failure, rec.skill = d.word(), d.word(), d.word()
		rec.action = router.Action(d.word())
		rec.id, rec.hash = d.strs()
		if n := d.uvarint(); n > 0 && n <= uint64(len(d.b)) && d.err == nil {
			if uint64(cap(slab)-len(slab)) < n {
				slab = make([]unitTerms, 0, max(n, 4096))
			}
			rec.units = slab[len(slab) : len(slab)+int(n) : len(slab)+int(n)]
			slab = slab[:len(slab)+int(n)]
			for i := range rec.units {
				rec.units[i] = unitTerms{has: d.uvarint(), val: d.uvarint()}
			}
		} else if n > 0 && d.err == nil {
			d.err = io.ErrUnexpectedEOF
		}
		if d.err == nil && len(d.b) != 0 {
			d.err = errors.New("a record longer than its fields")
		}
		if d.err != nil {
			return fmt.Errorf("read paired records back: %w", d.err)
		}
		fn(version, rec)
	}
}

// spillReader reads the spill's records a buffer at a time.
type spillReader struct {
	r   io.Reader
	buf []byte // unread: buf[at:]
	at  int
	eof bool
}

// fill makes at least n bytes unread, or as many as are left.
func (sr *spillReader) fill(n int) error {
	if len(sr.buf)-sr.at >= n || sr.eof {
		return nil
	}
	left := copy(sr.buf[:cap(sr.buf)], sr.buf[sr.at:])
	if n > cap(sr.buf) {
		grown := make([]byte, left, n)
		copy(grown, sr.buf[:left])
		sr.buf = grown
	}
	sr.buf, sr.at = sr.buf[:left], 0
	for len(sr.buf) < n && !sr.eof {
		got, err := sr.r.Read(sr.buf[len(sr.buf):cap(sr.buf)])
		sr.buf = sr.buf[:len(sr.buf)+got]
		switch {
		case errors.Is(err, io.EOF):
			sr.eof = true
		case err != nil:
			return err
		}
	}
	return nil
}

// size reads a record's size; ok is false at the end of the spill.
func (sr *spillReader) size() (size int, ok bool, err error) {
	if err := sr.fill(binary.MaxVarintLen64); err != nil {
		return 0, false, err
	}
	if sr.at == len(sr.buf) {
		return 0, false, nil
	}
	x, n := binary.Uvarint(sr.buf[sr.at:])
	if n <= 0 || x > 1<<30 {
		return 0, false, io.ErrUnexpectedEOF
	}
	sr.at += n
	return int(x), true, nil
}

// next is the record of size bytes that comes next, valid until the
// next call.
func (sr *spillReader) next(size int) ([]byte, error) {
	if err := sr.fill(size); err != nil {
		return nil, err
	}
	if len(sr.buf)-sr.at < size {
		return nil, io.ErrUnexpectedEOF
	}
	b := sr.buf[sr.at : sr.at+size]
	sr.at += size
	return b, nil
}

// spillDecoder reads one record's fields, keeping the first error.
type spillDecoder struct {
	b     []byte
	err   error
	words []string
}

func (d *spillDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = io.ErrUnexpectedEOF
		return 0
	}
	d.b = d.b[n:]
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

// strs reads two strings, which share one allocation.
func (d *spillDecoder) strs() (string, string) {
	n1 := d.uvarint()
	if d.err != nil || n1 > uint64(len(d.b)) {
		d.err = io.ErrUnexpectedEOF
		return "", ""
	}
	first := d.b[:n1]
	d.b = d.b[n1:]
	n2 := d.uvarint()
	if d.err != nil || n2 > uint64(len(d.b)) {
		d.err = io.ErrUnexpectedEOF
		return "", ""
	}
	both := string(first) + string(d.b[:n2])
	d.b = d.b[n2:]
	return both[:n1], both[n1:]
}
