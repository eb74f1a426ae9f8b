package builtin

// wordScan tells which of a fixed list of words (up to 64) a text holds,
// reading the text once: an Aho–Corasick automaton over bytes. The date
// rules' pre-checks look for some fifty words in every request, and a
// search per word read the text fifty times.
type wordScan struct {
	class  [256]uint8 // bytes no word holds share class 0
	nClass int
	next   []uint16 // next[state*nClass+class]
	found  []uint64 // the words that end at a state, suffixes included
}

func newWordScan(words []string) *wordScan {
	if len(words) > 64 {
		panic("builtin: a word scan holds at most 64 words")
	}
	w := &wordScan{nClass: 1}
	for _, word := range words {
		for i := 0; i < len(word); i++ {
			if w.class[word[i]] == 0 {
				w.class[word[i]] = uint8(w.nClass)
				w.nClass++
			}
		}
	}
	// The trie: goto edges, -1 where there is none.
	var edges [][]int
	newState := func() int {
		row := make([]int, w.nClass)
		for c := range row {
			row[c] = -1
		}
		edges = append(edges, row)
		w.found = append(w.found, 0)
		return len(edges) - 1
	}
	newState()
	for k, word := range words {
		s := 0
		for i := 0; i < len(word); i++ {
			c := w.class[word[i]]
			if edges[s][c] < 0 {
				t := newState()
				edges[s][c] = t
			}
			s = edges[s][c]
		}
		w.found[s] |= 1 << k
	}
	// Breadth first, each state's missing edges follow its longest proper
	// suffix that is a state (its failure state), whose words it holds too.
	w.next = make([]uint16, len(edges)*w.nClass)
	fail := make([]int, len(edges))
	queue := []int{}
	for c := 0; c < w.nClass; c++ {
		if t := edges[0][c]; t > 0 {
			queue = append(queue, t)
			w.next[c] = uint16(t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		w.found[s] |= w.found[fail[s]]
		for c := 0; c < w.nClass; c++ {
			if t := edges[s][c]; t >= 0 {
				fail[t] = int(w.next[fail[s]*w.nClass+c])
				w.next[s*w.nClass+c] = uint16(t)
				queue = append(queue, t)
			} else {
				w.next[s*w.nClass+c] = w.next[fail[s]*w.nClass+c]
			}
		}
	}
	return w
}

// holds has bit k set when text holds words[k].
func (w *wordScan) holds(text string) uint64 {
	var found uint64
	s := 0
	for i := 0; i < len(text); i++ {
		s = int(w.next[s*w.nClass+int(w.class[text[i]])])
		found |= w.found[s]
	}
	return found
}
