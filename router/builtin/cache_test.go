package builtin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// cacheRequests are made-up requests over the test registry's skills.
var cacheRequests = []string{
	"查一下华东大区上周已发货的订单",
	"which alerts fired in the east zone yesterday?",
	"restart the billing service in prod",
	"把预发的 payment-api 扩到 6 个副本",
	"something no skill is about, like a poem",
}

// judgeAll runs every cache request through a judge over f, all skills
// as candidates.
func judgeAll(f *fitted) []router.JudgeResponse {
	j := &Judge{fit: f}
	var out []router.JudgeResponse
	for _, text := range cacheRequests {
		resp, err := j.Judge(context.Background(), router.JudgeRequest{Text: text, Now: testNow, Candidates: f.skills})
		Expect(err).NotTo(HaveOccurred())
		out = append(out, resp)
	}
	return out
}

var _ = Describe("disk cache of fits", func() {
	var (
		dir    string
		skills []*registry.Skill
		key    [32]byte
	)
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		skills = testSkills()
		key = skillsKey(skills, defaultTopK)
	})

	It("reads back a fit bit for bit: the same encoding and the same verdicts", func() {
		fresh := fitSkills(skills, defaultTopK)
		data := encodeFitted(key, fresh)
		back := decodeFitted(data, key, testSkills(), defaultTopK)
		Expect(back).NotTo(BeNil())
		Expect(encodeFitted(key, back)).To(Equal(data))
		Expect(back.linRows).To(Equal(fresh.linRows))
		Expect(back.known).To(Equal(fresh.known))
		Expect(judgeAll(back)).To(Equal(judgeAll(fresh)))
		texts := recallTexts(skills)
		Expect(back.embedded).To(HaveLen(len(texts)))
		for _, text := range append(texts, cacheRequests...) {
			Expect(back.embed(text, nil)).To(Equal(fresh.embedText(text)), text)
		}
	})

	It("reads back a layer that holds only the weights training touched", func() {
		fresh := fitSkills(skills, defaultTopK)
		Expect(fresh.lin.lay.dense).To(BeTrue()) // this registry's choice; the held layout is forced below
		items := fresh.trainingItems(defaultWeights, max(trainCands, defaultTopK+1))
		lt := fresh.linTexts()
		fresh.lin = fresh.trainOn(lt, heldLayout(lt, items, fresh.linCount, len(fresh.skills)), items, defaultTraining, trainSeed)
		data := encodeFitted(key, fresh)
		back := decodeFitted(data, key, testSkills(), defaultTopK)
		Expect(back).NotTo(BeNil())
		Expect(back.lin.lay.dense).To(BeFalse())
		Expect(back.lin.w).To(Equal(fresh.lin.w))
		Expect(encodeFitted(key, back)).To(Equal(data))
		Expect(judgeAll(back)).To(Equal(judgeAll(fresh)))
	})

	It("stores on a miss and reads the entry on the next load", func() {
		first := fitOrLoad(dir, key, skills, defaultTopK)
		entries, err := filepath.Glob(filepath.Join(dir, "*"+cacheSuffix))
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(1))
		Expect(loadFitted(dir, key, skills, defaultTopK)).NotTo(BeNil())
		second := fitOrLoad(dir, key, skills, defaultTopK)
		Expect(judgeAll(second)).To(Equal(judgeAll(first)))
	})

	It("ignores a corrupt, truncated or other-format entry and rewrites it", func() {
		good := encodeFitted(key, fitSkills(skills, defaultTopK))
		flipped := append([]byte(nil), good...)
		flipped[len(flipped)/2] ^= 0x40
		// Another format: the same layout under another name, its
		// checksum intact, so only the format check can refuse it.
		body := append([]byte(nil), good[:len(good)-sha256.Size]...)
		at := strings.Index(string(body), cacheFormat)
		Expect(at).To(BeNumerically(">", 0))
		copy(body[at:], strings.Repeat("x", len(cacheFormat)))
		sum := sha256.Sum256(body)
		otherFormat := append(body, sum[:]...)
		for name, bad := range map[string][]byte{
			"flipped byte": flipped, "truncated": good[:len(good)-100], "empty": nil,
			"other format": otherFormat, "garbage": []byte("RBFIT\nnot a fit at all"),
		} {
			Expect(decodeFitted(bad, key, skills, defaultTopK)).To(BeNil(), name)
			Expect(os.WriteFile(cachePath(dir, key), bad, 0o644)).To(Succeed())
			f := fitOrLoad(dir, key, skills, defaultTopK)
			Expect(encodeFitted(key, f)).To(Equal(good), name)
			rewritten, err := os.ReadFile(cachePath(dir, key))
			Expect(err).NotTo(HaveOccurred())
			Expect(rewritten).To(Equal(good), name)
		}
	})

	It("never reads an entry under another key", func() {
		data := encodeFitted(key, fitSkills(skills, defaultTopK))
		other := skillsKey(skills, defaultTopK+1)
		Expect(decodeFitted(data, other, skills, defaultTopK+1)).To(BeNil())
	})

	It("gives different content different keys", func() {
		base := skillsKey(testSkills(), defaultTopK)
		Expect(skillsKey(testSkills(), defaultTopK)).To(Equal(base))
		changes := map[string]func([]*registry.Skill){
			"example text":   func(s []*registry.Skill) { s[0].Examples[0].Input += " please" },
			"example params": func(s []*registry.Skill) { s[0].Examples[0].Params = map[string]any{"zz": "made-up"} },
			"description":    func(s []*registry.Skill) { s[1].Description += " Also more." },
			"schema":         func(s []*registry.Skill) { s[0].ParamsSchema = map[string]any{"type": "object"} },
			"skill order":    func(s []*registry.Skill) { s[0], s[1] = s[1], s[0] },
			"when_not_to_use": func(s []*registry.Skill) {
				s[2].WhenNotToUse = append(s[2].WhenNotToUse, "not for poems")
			},
		}
		seen := map[[32]byte]string{base: "base"}
		for name, change := range changes {
			s := testSkills()
			change(s)
			k := skillsKey(s, defaultTopK)
			Expect(seen).NotTo(HaveKey(k), name)
			seen[k] = name
		}
		Expect(skillsKey(testSkills(), defaultTopK+1)).NotTo(Equal(base))
	})

	It("fits without a cache when its directory cannot be made or written", func() {
		file := filepath.Join(dir, "a-file")
		Expect(os.WriteFile(file, []byte("x"), 0o644)).To(Succeed())
		f := fitOrLoad(filepath.Join(file, "sub"), key, skills, defaultTopK)
		Expect(f).NotTo(BeNil())
		Expect(judgeAll(f)).To(Equal(judgeAll(fitSkills(skills, defaultTopK))))
	})

	It("keeps the directory bounded, dropping the oldest entries", func() {
		for i := range cacheMaxEntries + 3 {
			Expect(os.WriteFile(filepath.Join(dir, strings.Repeat("a", i+1)+cacheSuffix), []byte("x"), 0o644)).To(Succeed())
		}
		Expect(os.WriteFile(filepath.Join(dir, "unrelated.txt"), []byte("x"), 0o644)).To(Succeed())
		stale, fresh := filepath.Join(dir, "tmp-1"), filepath.Join(dir, "tmp-2")
		Expect(os.WriteFile(stale, []byte("x"), 0o644)).To(Succeed())
		Expect(os.WriteFile(fresh, []byte("x"), 0o644)).To(Succeed())
		old := time.Now().Add(-2 * time.Hour)
		Expect(os.Chtimes(stale, old, old)).To(Succeed())
		trimCache(dir)
		Expect(stale).NotTo(BeAnExistingFile())
		Expect(fresh).To(BeAnExistingFile())
		entries, _ := filepath.Glob(filepath.Join(dir, "*"+cacheSuffix))
		Expect(entries).To(HaveLen(cacheMaxEntries))
		Expect(filepath.Join(dir, "unrelated.txt")).To(BeAnExistingFile())
	})

	It("keeps the entries in use: a read counts as a write when trimming", func() {
		Expect(fitOrLoad(dir, key, skills, defaultTopK)).NotTo(BeNil())
		used := cachePath(dir, key)
		old := time.Now().Add(-48 * time.Hour)
		Expect(os.Chtimes(used, old, old)).To(Succeed())
		// Newer than the entry in use before it is read, older after.
		for i := range cacheMaxEntries - 1 {
			name := filepath.Join(dir, strings.Repeat("b", i+1)+cacheSuffix)
			Expect(os.WriteFile(name, []byte("x"), 0o644)).To(Succeed())
			at := old.Add(time.Duration(i+1) * time.Minute)
			Expect(os.Chtimes(name, at, at)).To(Succeed())
		}
		Expect(loadFitted(dir, key, testSkills(), defaultTopK)).NotTo(BeNil())
		Expect(os.WriteFile(filepath.Join(dir, "newest"+cacheSuffix), []byte("x"), 0o644)).To(Succeed())
		trimCache(dir)
		Expect(used).To(BeAnExistingFile())
		Expect(filepath.Join(dir, "b"+cacheSuffix)).NotTo(BeAnExistingFile(), "the least recently used entry goes")
	})

	It("is on by default for the command, off when asked, and the package never reads ROUTEBENCH_CACHE itself", func() {
		if base, err := os.UserCacheDir(); err == nil {
			for _, on := range []string{"", " ", "on", "ON", "1", "true", "yes"} {
				Expect(CacheDirFrom(on)).To(Equal(filepath.Join(base, "routebench")), "%q", on)
			}
		}
		for _, off := range []string{"off", "Off", " off ", "0", "false", "no"} {
			Expect(CacheDirFrom(off)).To(BeEmpty(), "%q", off)
		}
		Expect(CacheDirFrom("/some/dir")).To(Equal("/some/dir"))
		Expect(CacheDirFrom(" /some/dir ")).To(Equal("/some/dir"))
		GinkgoT().Setenv("HOME", "")
		GinkgoT().Setenv("XDG_CACHE_HOME", "")
		Expect(CacheDirFrom("")).To(BeEmpty(), "no user cache folder: no cache")
		GinkgoT().Setenv("ROUTEBENCH_CACHE", dir)
		Expect(CacheDir()).To(BeEmpty())
		restore := SetCacheDir(dir)
		Expect(CacheDir()).To(Equal(dir))
		restore()
		Expect(CacheDir()).To(BeEmpty())
	})
})

var _ = Describe("cacheFormat", func() {
	// A reminder, not a proof: when this registry's fit changes, the
	// fitting code changed, and entries written by the old code must not
	// be read. Bump cacheFormat, then update the digest here. The fit's
	// floats are kept free of fused multiply-adds, so the digest is the
	// same on every architecture in principle; it is pinned on amd64 only,
	// where it was measured.
	It("names the fit this code produces (bump it when the fit changes)", func() {
		if runtime.GOARCH != "amd64" {
			Skip("the digest was measured on amd64")
		}
		skills := testSkills()
		data := encodeFitted(skillsKey(skills, defaultTopK), fitSkills(skills, defaultTopK))
		sum := sha256.Sum256(data)
		Expect(cacheFormat).To(Equal("routebench-builtin-fit/4"))
		Expect(hex.EncodeToString(sum[:])).To(Equal("9a0ecd7378eb2ca725907191d3894702040bc96616f78fe32a20ec35f6ac1c7b"),
			"the builtin fit changed: bump cacheFormat and update this digest")
	})
})
