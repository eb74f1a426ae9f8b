package builtin

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/routebench/routebench/router/registry"
)

// The disk cache keeps fitted models between processes: fitting a
// 150-skill, 15,000-example registry costs seconds, reading it back tens
// of milliseconds. An entry is named by the sha256 of cacheFormat, the fit
// settings and every skill input the fit reads (skillsKey), so it can only
// be found by the same content fitted by the same code. Anything wrong
// with an entry (truncated, corrupt, another format) makes it a miss: the
// model is fitted again and the entry rewritten. Any failure to read or
// write the cache is a miss too, never an error.
//
// The package caches only once SetCacheDir names a directory, and never
// reads the environment itself, so a developer's cache is never touched by
// go test; tests that exercise the cache set a directory with SetCacheDir.
// The routebench command turns it on at start (CacheDirFrom): in the user
// cache folder unless ROUTEBENCH_CACHE names another directory or turns it
// off. On by default because the second run of a version is the common
// case (a CI gate, an engineer iterating on suites) and an entry can only
// be found by the same content fitted by the same code.

// cacheFormat names the fitting code and the entry layout. Bump it
// whenever fitting, embedding or this encoding changes what a registry
// fits to: an entry of another format is never read. The fitFormatGuard
// spec fails when the fit of its registry changes, as a reminder.
const cacheFormat = "routebench-builtin-fit/4"

// cacheMagic starts every entry file.
const cacheMagic = "RBFIT\n"

const (
	// cacheMaxEntries and cacheMaxBytes bound the directory: after a
	// write, the oldest entries go until both hold.
	cacheMaxEntries = 32
	cacheMaxBytes   = 1 << 30
	cacheSuffix     = ".fit"
)

var cacheConfig = struct {
	sync.Mutex
	set bool
	dir string
}{}

// SetCacheDir makes the builtin models cache their fits in dir ("" turns
// the cache off); for the command (from ROUTEBENCH_CACHE) and for tests. It returns a function restoring the previous setting.
func SetCacheDir(dir string) (restore func()) {
	cacheConfig.Lock()
	defer cacheConfig.Unlock()
	set, old := cacheConfig.set, cacheConfig.dir
	cacheConfig.set, cacheConfig.dir = true, dir
	return func() {
		cacheConfig.Lock()
		defer cacheConfig.Unlock()
		cacheConfig.set, cacheConfig.dir = set, old
	}
}

// CacheDir is the directory fits are cached in, "" when the cache is off.
func CacheDir() string {
	cacheConfig.Lock()
	defer cacheConfig.Unlock()
	if cacheConfig.set {
		return cacheConfig.dir
	}
	return ""
}

// CacheDirFrom reads a ROUTEBENCH_CACHE value: unset, empty or "on" (or
// 1, true, yes) is the user cache folder, "off" (or 0, false, no) no
// cache, anything else a directory. With no user cache folder to be had
// ($HOME and $XDG_CACHE_HOME unset), the default is no cache.
func CacheDirFrom(env string) string {
	v := strings.TrimSpace(env)
	switch strings.ToLower(v) {
	case "off", "0", "false", "no":
		return ""
	case "", "on", "1", "true", "yes":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(base, "routebench")
	}
	return v
}

func cachePath(dir string, key [32]byte) string {
	return filepath.Join(dir, hex.EncodeToString(key[:])+cacheSuffix)
}

// loadFitted reads the fit of skills stored under key, or nil.
func loadFitted(dir string, key [32]byte, skills []*registry.Skill, topK int) *fitted {
	path := cachePath(dir, key)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	f := decodeFitted(data, key, skills, topK)
	if f != nil {
		// Trimming drops the entries least recently written; a read counts
		// as a write, so the entries in use are the ones kept.
		now := time.Now()
		os.Chtimes(path, now, now)
	}
	return f
}

// storeFitted writes f under key atomically (a temporary file renamed into
// place, so a reader sees a whole entry or none), then trims the cache.
func storeFitted(dir string, key [32]byte, f *fitted) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, "tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(encodeFitted(key, f))
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), cachePath(dir, key)) != nil {
		os.Remove(tmp.Name())
		return
	}
	trimCache(dir)
}

// trimCache removes the least recently used entries beyond the bounds (a
// read refreshes an entry's modification time, see loadFitted).
func trimCache(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		size int64
		mod  int64
	}
	var all []entry
	var total int64
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			continue
		}
		// A temporary file an hour old belongs to a process that died
		// before renaming it.
		if strings.HasPrefix(e.Name(), "tmp-") && time.Since(info.ModTime()) > time.Hour {
			os.Remove(filepath.Join(dir, e.Name()))
		}
		if !strings.HasSuffix(e.Name(), cacheSuffix) {
			continue
		}
		all = append(all, entry{e.Name(), info.Size(), info.ModTime().UnixNano()})
		total += info.Size()
	}
	slices.SortFunc(all, func(a, b entry) int {
		if a.mod != b.mod {
			return int(min(max(a.mod-b.mod, -1), 1))
		}
		return strings.Compare(a.name, b.name)
	})
	for len(all) > 1 && (len(all) > cacheMaxEntries || total > cacheMaxBytes) {
		os.Remove(filepath.Join(dir, all[0].name))
		total -= all[0].size
		all = all[1:]
	}
}

// encodeFitted lays f out as: magic, format, key, the learned arrays
// (little-endian, floats by their bits), and a sha256 of all before it.
// What derives from these and the skills (texts, postings, stems) is
// rebuilt on reading.
func encodeFitted(key [32]byte, f *fitted) []byte {
	var e encoder
	e.b = append(e.b, cacheMagic...)
	e.str(cacheFormat)
	e.b = append(e.b, key[:]...)
	e.u64(uint64(f.topK))
	e.u64(uint64(len(f.texts)))
	hashes := make([]uint64, len(f.idf))
	for h, id := range f.vocab {
		hashes[id] = h
	}
	e.u64s(hashes)
	e.f32s(f.idf)
	e.f64(f.maxIDF)
	e.f64(f.functionIDF)
	e.vecs(f.docs)
	e.vecs(f.centroid)
	e.f64s(f.cenNorm)
	e.f64s(f.cal.right[:])
	e.f64s(f.cal.in[:])
	e.u64(uint64(f.cal.items))
	e.u64(uint64(f.cal.correct))
	e.u64(uint64(f.cal.oos))
	e.u64(uint64(f.lin.skills))
	e.f32s(f.lin.beta[:])
	e.f32s(f.lin.bias)
	if f.lin.lay.dense {
		e.u64(1)
	} else {
		e.u64(0)
	}
	e.u64s(f.lin.lay.bits)
	e.f32s(f.lin.w)
	texts := slices.Sorted(maps.Keys(f.embedded))
	e.u64(uint64(len(texts)))
	for _, t := range texts {
		b := f.embedded[t]
		e.str(t)
		e.i32s(b.idx)
		e.f32s(b.val)
	}
	sum := sha256.Sum256(e.b)
	return append(e.b, sum[:]...)
}

// decodeFitted is encodeFitted's inverse for skills, or nil when data is
// not a whole, intact entry of this format for key and skills.
func decodeFitted(data []byte, key [32]byte, skills []*registry.Skill, topK int) *fitted {
	if len(data) < len(cacheMagic)+sha256.Size {
		return nil
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil
	}
	d := decoder{b: body}
	if string(d.take(len(cacheMagic))) != cacheMagic || d.str() != cacheFormat || !bytes.Equal(d.take(32), key[:]) {
		return nil
	}
	if int(d.u64()) != topK {
		return nil
	}
	m := &model{skills: skills, byName: make(map[string]int, len(skills)), recent: new(featureMemo)}
	for i, s := range skills {
		m.byName[s.Name] = i
	}
	m.texts = collectTexts(skills)
	if int(d.u64()) != len(m.texts) {
		return nil
	}
	hashes := d.u64s()
	m.idf = d.f32s()
	m.maxIDF, m.functionIDF = d.f64(), d.f64()
	m.docs = d.vecs(len(hashes))
	m.centroid = d.vecs(len(hashes))
	m.cenNorm = d.f64s()
	var cal calibration
	right, in := d.f64s(), d.f64s()
	cal.items, cal.correct, cal.oos = int(d.u64()), int(d.u64()), int(d.u64())
	lin := &linearModel{skills: int(d.u64())}
	beta := d.f32s()
	lin.bias = d.f32s()
	dense := d.u64()
	held := d.u64s()
	lin.w = d.f32s()
	n := d.count(24)
	m.embedded = make(map[string]bucketVec, n)
	for range n {
		t := d.str()
		b := bucketVec{idx: d.i32s(), val: d.f32s()}
		if len(b.idx) != len(b.val) || slices.ContainsFunc(b.idx, func(i int32) bool { return i < 0 || i >= EmbedDim }) {
			return nil
		}
		m.embedded[t] = b
	}
	S := len(skills)
	if d.bad || len(d.b) != 0 || len(m.idf) != len(hashes) || len(m.docs) != len(m.texts) ||
		len(m.centroid) != S || len(m.cenNorm) != S || len(right) != len(cal.right) || len(in) != len(cal.in) ||
		lin.skills != S || len(beta) != len(lin.beta) || len(lin.bias) != S {
		return nil
	}
	copy(cal.right[:], right)
	copy(cal.in[:], in)
	copy(lin.beta[:], beta)
	m.cal = cal
	m.vocab = make(map[uint64]int32, len(hashes))
	for id, h := range hashes {
		m.vocab[h] = int32(id)
	}
	if len(m.vocab) != len(hashes) {
		return nil
	}
	m.indexVocab()
	m.groupTexts()
	m.buildPostings()
	var lay *linLayout
	switch {
	case dense == 1 && len(held) == 0:
		lay = denseLayout(m.linCount, S)
	case dense == 0 && len(held) == m.linCount*((S+63)/64):
		lay = &linLayout{skills: S, words: (S + 63) / 64, bits: held}
		lay.index()
	default:
		return nil
	}
	if lay.n != len(lin.w) {
		return nil
	}
	lin.rows, lin.lay = m.linRows, lay
	f := newFitted(m, topK)
	f.lin = lin
	return f
}

// encoder appends fixed-width little-endian values; slices carry their
// length first.
type encoder struct{ b []byte }

func (e *encoder) u64(x uint64)  { e.b = binary.LittleEndian.AppendUint64(e.b, x) }
func (e *encoder) f64(x float64) { e.u64(math.Float64bits(x)) }
func (e *encoder) str(s string)  { e.u64(uint64(len(s))); e.b = append(e.b, s...) }

func (e *encoder) u64s(xs []uint64) {
	e.u64(uint64(len(xs)))
	for _, x := range xs {
		e.u64(x)
	}
}

func (e *encoder) f64s(xs []float64) {
	e.u64(uint64(len(xs)))
	for _, x := range xs {
		e.f64(x)
	}
}

func (e *encoder) f32s(xs []float32) {
	e.u64(uint64(len(xs)))
	for _, x := range xs {
		e.b = binary.LittleEndian.AppendUint32(e.b, math.Float32bits(x))
	}
}

func (e *encoder) i32s(xs []int32) {
	e.u64(uint64(len(xs)))
	for _, x := range xs {
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(x))
	}
}

func (e *encoder) vecs(vs []sparseVec) {
	e.u64(uint64(len(vs)))
	for _, v := range vs {
		e.i32s(v.idx)
		e.f32s(v.val)
	}
}

// decoder reads what encoder wrote; any shortfall sets bad and yields
// zero values, so a damaged entry is rejected, never half-read.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) take(n int) []byte {
	if n < 0 || n > len(d.b) {
		d.bad = true
		d.b = nil
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) u64() uint64 {
	if p := d.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }
func (d *decoder) str() string  { return string(d.take(d.count(1))) }

// count reads a length of elements of size bytes, refusing one longer
// than what is left.
func (d *decoder) count(size int) int {
	n := d.u64()
	if n > uint64(len(d.b)/size) {
		d.bad = true
		d.b = nil
		return 0
	}
	return int(n)
}

func (d *decoder) u64s() []uint64 {
	p := d.take(8 * d.count(8))
	out := make([]uint64, len(p)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(p[8*i:])
	}
	return out
}

func (d *decoder) f64s() []float64 {
	p := d.take(8 * d.count(8))
	out := make([]float64, len(p)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
	return out
}

func (d *decoder) f32s() []float32 {
	p := d.take(4 * d.count(4))
	out := make([]float32, len(p)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
	return out
}

func (d *decoder) i32s() []int32 {
	p := d.take(4 * d.count(4))
	out := make([]int32, len(p)/4)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(p[4*i:]))
	}
	return out
}

// vecs reads sparse vectors over a vocabulary of vocab features,
// rejecting any that name a feature outside it.
func (d *decoder) vecs(vocab int) []sparseVec {
	n := d.count(16)
	out := make([]sparseVec, n)
	for i := range out {
		out[i] = sparseVec{idx: d.i32s(), val: d.f32s()}
		if len(out[i].idx) != len(out[i].val) {
			d.bad = true
		}
		for _, x := range out[i].idx {
			if x < 0 || int(x) >= vocab {
				d.bad = true
			}
		}
	}
	return out
}
