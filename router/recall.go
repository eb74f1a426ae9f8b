package router

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/philippgille/chromem-go"

	"github.com/routebench/routebench/router/registry"
)

// recallIndex is stage 2: one document per description, when_to_use item
// and example input of every skill (never the params schema, whose field
// names would pull unrelated requests in), stored through a chromem-go
// collection. A skill's recall score is its best document's cosine
// similarity.
//
// chromem stores the documents and normalises their embeddings; requests
// are scored against a copy of those normalised vectors, grouped by skill
// (by dimension for sparse ones, the builtin embedder's; row by row for
// dense ones), rather than through chromem's query. A chromem query scans
// every document on several goroutines and sorts the hits, on every
// request; the copy lets one pass score only the skills asked about,
// touch only the dimensions the request has, and share one pass between
// ranking and diagnosis. Scores equal chromem's: the same
// float32 products summed in the same order (kept unfused by an explicit
// conversion, so every architecture agrees), and the terms skipped are
// exact zeros.
type recallIndex struct {
	embed EmbeddingFunc
	// embedInto is Models.EmbedInto, nil when the embedder has none.
	embedInto func(ctx context.Context, text string, dst []float32) ([]float32, error)
	// dim is the embeddings' length; 0 when nothing was indexed.
	dim int
	// The indexed documents are numbered skill after skill in registry
	// order (rows of them); rows[i] is skill i's [first, last).
	nrows int
	rows  [][2]int
	// Sparse vectors (the builtin embedder's) are kept by dimension only:
	// post's postings j are the rows non-zero in dimension j, rows
	// ascending, so a request touches only what it shares with each
	// document. Dense ones are kept in vecs, dim floats a row (post is
	// nil, vecs empty for a sparse index).
	post *postings
	vecs []float32
	// order is each skill's registry position, the tie-break that keeps
	// rankings deterministic.
	order map[string]int
	// skills are the indexed skills by registry position, each where
	// order places its name (nil at a position a later skill of the same
	// name took), so identity stands for a lookup by name.
	skills []*registry.Skill
}

// recallDoc is one text a skill is recalled by.
type recallDoc struct {
	id, skill, text string
}

// skillDocs lists a skill's recall documents, skipping empty and repeated texts.
func skillDocs(s *registry.Skill) []recallDoc {
	var out []recallDoc
	seen := map[string]bool{}
	add := func(kind string, i int, text string) {
		if text == "" || seen[text] {
			return
		}
		seen[text] = true
		out = append(out, recallDoc{id: s.Name + "#" + kind + strconv.Itoa(i), skill: s.Name, text: text})
	}
	add("description", 0, s.Description)
	for i, w := range s.WhenToUse {
		add("when_to_use", i, w)
	}
	for i, e := range s.Examples {
		add("example", i, e.Input)
	}
	return out
}

// buildIndex embeds every skill's documents (in parallel: a remote embedder
// is latency-bound, the builtin one CPU-bound) and loads them into chromem,
// which normalises them; the index keeps its copy of the vectors, and the
// collection, which nothing queries once the copy is made, is let go: it
// held every document's text and a dense vector for each (26 MB for a
// registry of 13,000 texts, twice that in the heap's growth).
func buildIndex(ctx context.Context, skills []*registry.Skill, embed EmbeddingFunc) (*recallIndex, error) {
	ix, _, err := buildIndexIn(ctx, skills, embed)
	return ix, err
}

// buildIndexIn is buildIndex returning the chromem collection too, for the
// specs that hold the index's scores to chromem's own query.
func buildIndexIn(ctx context.Context, skills []*registry.Skill, embed EmbeddingFunc) (*recallIndex, *chromem.Collection, error) {
	ix := &recallIndex{embed: embed, order: make(map[string]int, len(skills)), rows: make([][2]int, len(skills))}
	var docs []recallDoc
	for i, s := range skills {
		ix.order[s.Name] = i
		docs = append(docs, skillDocs(s)...)
	}
	ix.skills = make([]*registry.Skill, len(skills))
	for i, s := range skills {
		if ix.order[s.Name] == i {
			ix.skills[i] = s
		}
	}
	db := chromem.NewDB()
	coll, err := db.CreateCollection("skills", nil, chromem.EmbeddingFunc(embed))
	if err != nil {
		return nil, nil, fmt.Errorf("create recall collection: %w", err)
	}
	// Each document is embedded and added on a worker: chromem holds its
	// documents under a lock, and normalising a 15,000-document
	// registry's vectors one by one took a core for a tenth of a second.
	// Workers take runs of documents, up to docChunk, a few runs a worker
	// at least (a hand-off a document through a channel cost more than
	// adding most of them); the rows are laid out in document order after.
	stored := make([]storedDoc, len(docs))
	errs := make([]error, len(docs))
	workers := min(runtime.NumCPU(), max(len(docs), 1))
	chunk := max(min(docChunk, len(docs)/(4*workers)), 1)
	var wg sync.WaitGroup
	var next atomic.Int64
	for range workers {
		wg.Go(func() {
			for {
				from := int(next.Add(int64(chunk))) - chunk
				if from >= len(docs) {
					return
				}
				for i := from; i < min(from+chunk, len(docs)); i++ {
					stored[i], errs[i] = addDoc(ctx, coll, docs[i], embed)
				}
			}
		})
	}
	wg.Wait()
	// docs are in skill order, so each skill's rows are one run.
	nnz := 0
	for i, d := range docs {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		if stored[i].vec == nil {
			continue // nothing to index: see addDoc
		}
		if ix.dim == 0 {
			ix.dim = len(stored[i].vec)
		} else if len(stored[i].vec) != ix.dim {
			return nil, nil, fmt.Errorf("embed %s of skill %s: %d dimensions, other documents have %d", d.id, d.skill, len(stored[i].vec), ix.dim)
		}
		k := ix.order[d.skill]
		if ix.rows[k][1] == 0 {
			ix.rows[k] = [2]int{ix.nrows, ix.nrows}
		}
		ix.nrows++
		ix.rows[k][1] = ix.nrows
		nnz += len(stored[i].nonZero)
	}
	if ix.nrows > math.MaxInt32 {
		return nil, nil, fmt.Errorf("index %d recall documents: at most %d fit", ix.nrows, math.MaxInt32)
	}
	if float64(nnz) <= sparseShare*float64(ix.nrows)*float64(ix.dim) {
		ix.post = newPostings(stored, ix.dim, nnz)
		return ix, coll, nil
	}
	// One allocation for every row: grown by appending, 15,000 rows of 512
	// were copied again and again.
	ix.vecs = make([]float32, 0, ix.nrows*ix.dim)
	for _, sd := range stored {
		ix.vecs = append(ix.vecs, sd.vec...)
	}
	return ix, coll, nil
}

// storedDoc is a document's embedding as chromem stored it (normalised),
// and the dimensions where it is not zero, ascending; vec is nil for a
// document left out.
type storedDoc struct {
	vec     []float32
	nonZero []int32
}

// docChunk is the most documents a worker of buildIndexIn takes at once.
const docChunk = 64

// addDoc embeds one document and adds it to the collection, returning the
// embedding as chromem stores it (normalised), so scores are the ones its
// own query would give. A text the embedder sees nothing in (all
// punctuation, say) has a zero vector and is not added (no vector, no
// error): normalising it would poison every query with NaN.
func addDoc(ctx context.Context, coll *chromem.Collection, d recallDoc, embed EmbeddingFunc) (storedDoc, error) {
	vec, err := embed(ctx, d.text)
	if err != nil {
		return storedDoc{}, fmt.Errorf("embed %s of skill %s: %w", d.id, d.skill, err)
	}
	n := norm(vec)
	if n == 0 {
		return storedDoc{}, nil
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return storedDoc{}, fmt.Errorf("embed %s of skill %s: the embedding holds a NaN or infinite entry", d.id, d.skill)
	}
	err = coll.AddDocument(ctx, chromem.Document{
		ID:        d.id,
		Metadata:  map[string]string{"skill": d.skill},
		Embedding: vec,
		Content:   d.text,
	})
	if err != nil {
		return storedDoc{}, fmt.Errorf("index %s: %w", d.id, err)
	}
	// What chromem stores is what unit gives (its normalisation of a
	// document is its normalisation of a query): reading each document
	// back (GetByID) copied its vector and metadata under chromem's lock
	// for the same numbers. The specs hold the scores to chromem's own
	// query, for vectors of unit length and for others.
	sd := storedDoc{vec: unit(vec, n)}
	for j, x := range sd.vec {
		if x != 0 {
			sd.nonZero = append(sd.nonZero, int32(j))
		}
	}
	return sd, nil
}

// postings is a column-wise copy of the index's non-zero entries:
// dimension j's are row[start[j]:start[j+1]] with their values.
type postings struct {
	start []int32
	row   []int32
	val   []float32
}

// sparseShare is the largest share of non-zero entries worth a postings
// copy: denser vectors are scanned row by row.
const sparseShare = 0.25

// newPostings lays the documents' nnz non-zero entries out by dimension,
// rows (the documents not left out, in order) ascending in each.
func newPostings(docs []storedDoc, dim, nnz int) *postings {
	p := &postings{start: make([]int32, dim+1), row: make([]int32, nnz), val: make([]float32, nnz)}
	for _, d := range docs {
		for _, j := range d.nonZero {
			p.start[j+1]++
		}
	}
	for j := 1; j <= dim; j++ {
		p.start[j] += p.start[j-1]
	}
	next := slices.Clone(p.start[:dim])
	row := int32(0)
	for _, d := range docs {
		if d.vec == nil {
			continue
		}
		for _, j := range d.nonZero {
			p.row[next[j]], p.val[next[j]] = row, d.vec[j]
			next[j]++
		}
		row++
	}
	return p
}

func norm(v []float32) float64 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	return math.Sqrt(sum)
}

// rank returns the top k of allowed skills by the recall scores of one
// request (from scores), best first, ties broken by registry order. Skills
// without any indexed document (or every skill, when the query embeds to
// nothing) score 0. The ranking is appended to dst (nil: a new list).
//
// It runs two or three times a request (the judge's candidates, the
// diagnosis of dropped skills), so it sorts plain integers: the rounded
// score, the registry position and the place in allowed packed into one
// key, which orders as the comparison of byComparison does. byComparison
// ranks what does not pack (a score out of range, a huge list).
func (ix *recallIndex) rank(best []float32, allowed []*registry.Skill, k int, dst []Candidate) []Candidate {
	return ix.rankWith(best, allowed, k, dst, nil)
}

// rankWith is rank with the request's recall buffers lent for the
// per-skill work (nil: its own), which a large registry's request would
// otherwise allocate afresh on every ranking.
func (ix *recallIndex) rankWith(best []float32, allowed []*registry.Skill, k int, dst []Candidate, buf *routeScratch) []Candidate {
	if k <= 0 || k > len(allowed) {
		k = len(allowed)
	}
	var room [32]Candidate
	var keyRoom [32]uint64
	cands, keys := room[:0], keyRoom[:0]
	switch {
	case len(allowed) <= len(room):
	case buf != nil:
		if cap(buf.cands) < len(allowed) {
			buf.cands, buf.keys = make([]Candidate, 0, len(allowed)), make([]uint64, 0, len(allowed))
		}
		cands, keys = buf.cands[:0], buf.keys[:0]
	default:
		cands, keys = make([]Candidate, 0, len(allowed)), make([]uint64, 0, len(allowed))
	}
	packs := len(allowed) <= rankField
	next := 0
	for n, s := range allowed {
		i, ok := ix.position(s, &next)
		var sc float32
		if ok && best != nil {
			sc = best[i]
		}
		// round4, its integer kept for the key.
		r := math.Round(float64(sc) * 1e4)
		cands = append(cands, Candidate{Skill: s.Name, Score: r / 1e4})
		if !(r > -rankField && r < rankField) || i >= rankField {
			packs = false // NaN too
		}
		if packs {
			// Best first: a higher score is a smaller key.
			keys = append(keys, uint64(rankField-int64(r))<<(2*rankBits)|uint64(i)<<rankBits|uint64(n))
		}
	}
	out := dst[:0]
	if cap(out) < k {
		out = make([]Candidate, 0, k)
	}
	if !packs {
		return ix.byComparison(cands, k, out)
	}
	if k <= selectMax && len(keys) > 4*k {
		keys = smallestKeys(keys, k)
	} else {
		slices.Sort(keys)
	}
	for _, key := range keys[:k] {
		out = append(out, cands[key&(rankField-1)])
	}
	return out
}

// selectMax is the largest k that rank picks by selection rather than by
// sorting every key: a large registry's request wants its top 3 or 5 of a
// thousand skills, and sorting them all was a tenth of its routing time.
const selectMax = 32

// smallestKeys moves the k smallest of keys, ascending, to its front and
// returns keys. Keys are distinct (each holds its place in allowed), so
// the result is what sorting every key gives, in O(len(keys)·k) at worst
// and about O(len(keys)) as a rule: most keys lose to the k-th at once.
func smallestKeys(keys []uint64, k int) []uint64 {
	var room [selectMax]uint64
	top := room[:0]
	for _, key := range keys {
		if len(top) == k {
			if key >= top[k-1] {
				continue
			}
			top = top[:k-1]
		}
		i := len(top)
		top = append(top, key)
		for ; i > 0 && top[i-1] > key; i-- {
			top[i] = top[i-1]
		}
		top[i] = key
	}
	copy(keys, top)
	return keys
}

// rankBits is the width of each field of a rank key below the score's:
// registry position and place in allowed; the score takes the rest (its
// rounded value plus rankField stays below 2^(64-2*rankBits)).
const (
	rankBits  = 21
	rankField = 1 << rankBits
)

// byComparison is rank's ordering by comparison: score first, then
// registry position (0 for a skill the index does not know), stable
// otherwise; the top k are appended to out.
func (ix *recallIndex) byComparison(cands []Candidate, k int, out []Candidate) []Candidate {
	ranked := make([]orderedCandidate, len(cands))
	for n, c := range cands {
		ranked[n] = orderedCandidate{c, ix.order[c.Skill]}
	}
	slices.SortStableFunc(ranked, func(a, b orderedCandidate) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return a.order - b.order
	})
	for _, c := range ranked[:k] {
		out = append(out, c.Candidate)
	}
	return out
}

// position is skill s's registry position in the index (its order, found
// by name), or false when the index does not know it. Allowed skills
// usually come in registry order, so the few positions from *next on are
// tried first, by identity; *next moves past the one found.
func (ix *recallIndex) position(s *registry.Skill, next *int) (int, bool) {
	for j := *next; j < len(ix.skills) && j < *next+4; j++ {
		if ix.skills[j] == s {
			*next = j + 1
			return j, true
		}
	}
	i, ok := ix.order[s.Name]
	if ok {
		*next = i + 1
	}
	return i, ok
}

// orderedCandidate is a candidate with its skill's registry position.
type orderedCandidate struct {
	Candidate
	order int
}

// routeScratch holds recall's buffers for one request (from the router's
// pool, back when the request is routed): the scores by document row and
// by skill, and the ranking diagnosis reads.
type routeScratch struct {
	query, dots, best []float32
	nz                []int32 // the request's non-zero dimensions
	ranked            []Candidate
	// rank's per-skill candidates and sort keys.
	cands []Candidate
	keys  []uint64
}

// floats is buf resized to n zeros.
func floats(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// scores embeds text and returns every skill's recall score by registry
// position: its best document's cosine similarity, 0 for a skill with no
// document. It is nil (every skill 0) when nothing is indexed or the text
// embeds to nothing. The scores are in buf's memory (nil buf: new).
func (ix *recallIndex) scores(ctx context.Context, text string, buf *routeScratch) ([]float32, error) {
	if buf == nil {
		buf = new(routeScratch)
	}
	if ix.dim == 0 {
		return nil, nil
	}
	var q []float32
	var err error
	if ix.embedInto != nil {
		q, err = ix.embedInto(ctx, text, buf.query[:0])
		buf.query = q
	} else {
		q, err = ix.embed(ctx, text)
	}
	if err != nil {
		return nil, fmt.Errorf("embed request: %w", err)
	}
	if len(q) != ix.dim {
		return nil, fmt.Errorf("query recall index: the request embeds to %d dimensions, the index has %d", len(q), ix.dim)
	}
	// One pass for the length and the non-zero dimensions; a vector unit
	// rescales is read again (a tiny entry may round to zero). A zero
	// vector scores nothing.
	n, nz := normNonZero(q, buf.nz[:0])
	buf.nz = nz
	if n == 0 {
		return nil, nil
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, errors.New("embed request: the embedding holds a NaN or infinite entry")
	}
	if u := unit(q, n); &u[0] != &q[0] {
		q, nz = u, appendNonZero(nz[:0], u)
		buf.nz = nz
	}
	// A sparse index is kept only by dimension, and scored from there
	// whatever the request.
	if ix.post != nil {
		return ix.postingScores(q, nz, buf), nil
	}
	// Only the request's non-zero dimensions contribute; a dense request
	// (a remote embedder's) is scanned whole.
	if len(nz)*2 > len(q) {
		nz = nil
	}
	best := floats(buf.best, len(ix.rows))
	buf.best = best
	for i, r := range ix.rows {
		if r[0] == r[1] {
			continue
		}
		top := float32(math.Inf(-1))
		for row := r[0]; row < r[1]; row++ {
			v := ix.vecs[row*ix.dim : (row+1)*ix.dim]
			var dot float32
			if nz == nil {
				for j, x := range q {
					dot += float32(x * v[j])
				}
			} else {
				for _, j := range nz {
					dot += float32(q[j] * v[j])
				}
			}
			top = max(top, dot)
		}
		best[i] = top
	}
	return best, nil
}

// postingScores is the row scan of scores done through the postings: each
// row's products are summed in the same order (dimension ascending), and
// the products with a zero entry a row scan adds change no sum (adding a
// signed zero to a sum that started at +0 leaves it as it is; every entry
// is finite), so every score is bit for bit the scan's, for a sparse
// request or a dense one. nz are q's non-zero dimensions, ascending
// (appendNonZero).
func (ix *recallIndex) postingScores(q []float32, nz []int32, buf *routeScratch) []float32 {
	p := ix.post
	dots := floats(buf.dots, ix.nrows)
	buf.dots = dots
	for _, j := range nz {
		x := q[j]
		rows := p.row[p.start[j]:p.start[j+1]]
		vals := p.val[p.start[j]:p.start[j+1]]
		vals = vals[:len(rows)]
		// Four rows at a time, as slices the compiler sees the bounds of:
		// a posting list holds a row once, so each row's sum still gets
		// its products in dimension order.
		k := 0
		for ; k+4 <= len(rows); k += 4 {
			r := rows[k : k+4 : k+4]
			v := vals[k : k+4 : k+4]
			dots[r[0]] += float32(x * v[0])
			dots[r[1]] += float32(x * v[1])
			dots[r[2]] += float32(x * v[2])
			dots[r[3]] += float32(x * v[3])
		}
		for ; k < len(rows); k++ {
			dots[rows[k]] += float32(x * vals[k])
		}
	}
	best := floats(buf.best, len(ix.rows))
	buf.best = best
	for i, r := range ix.rows {
		if r[0] == r[1] {
			continue
		}
		top := float32(math.Inf(-1))
		for _, dot := range dots[r[0]:r[1]] {
			top = max(top, dot)
		}
		best[i] = top
	}
	return best
}

// normNonZero is norm(v), and v's non-zero dimensions appended to nz, in
// one pass.
func normNonZero(v []float32, nz []int32) (float64, []int32) {
	var sum float64
	for j, x := range v {
		if x != 0 {
			// Zeros add +0 to the sum: leaving them out changes no bit.
			sum += float64(x) * float64(x)
			nz = append(nz, int32(j))
		}
	}
	return math.Sqrt(sum), nz
}

// appendNonZero appends v's non-zero dimensions to nz, ascending.
func appendNonZero(nz []int32, v []float32) []int32 {
	for j, x := range v {
		if x != 0 {
			nz = append(nz, int32(j))
		}
	}
	return nz
}

// unit returns non-zero v, whose norm is n, scaled to length 1 as chromem
// scales a query or a document it adds (float32 sum of squares; vectors
// already within 1e-6 of unit length are left as they are, and chromem
// keeps such a document's vector itself).
func unit(v []float32, n float64) []float32 {
	if math.Abs(n-1) < 1e-6 {
		return v
	}
	var sq float32
	for _, x := range v {
		sq += x * x
	}
	l := float32(math.Sqrt(float64(sq)))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x / l
	}
	return out
}

// round4 keeps scores readable in JSON (float32 similarities would print as
// 0.9100000262260437).
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
