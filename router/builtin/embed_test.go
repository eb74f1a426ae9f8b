package builtin

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func vectorNorm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

var _ = Describe("embedder", func() {
	ctx := context.Background()

	It("writes into a lent buffer exactly what it returns fresh", func() {
		reg := testRegistry()
		embed, into := NewEmbedder(reg), NewEmbedderInto(reg)
		buf := make([]float32, 0, EmbedDim)
		texts := []string{"华东区上周的订单", "restart search-api in staging", "", "...", reg.Skills[0].Description, "x"}
		for _, text := range append(texts, texts...) { // the buffer is dirty from the text before
			want, err := embed(ctx, text)
			Expect(err).NotTo(HaveOccurred())
			got, err := into(ctx, text, buf[:0])
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want), text)
			Expect(&got[0]).To(BeIdenticalTo(&buf[:1][0]), "written in the lent memory")
		}
		small, err := into(ctx, "x", make([]float32, 0, 3))
		Expect(err).NotTo(HaveOccurred())
		Expect(small).To(HaveLen(EmbedDim))
	})

	It("returns unit vectors of EmbedDim", func() {
		embed := NewEmbedder(testRegistry())
		for _, text := range []string{"华东区上周的订单", "restart search-api in staging", "x"} {
			v, err := embed(ctx, text)
			Expect(err).NotTo(HaveOccurred())
			Expect(v).To(HaveLen(EmbedDim))
			Expect(vectorNorm(v)).To(BeNumerically("~", 1, 1e-6), text)
		}
	})

	It("is deterministic across calls and across embedders of equal registries", func() {
		a, _ := NewEmbedder(testRegistry())(ctx, "看看华东区上周已发货的订单")
		b, _ := NewEmbedder(testRegistry())(ctx, "看看华东区上周已发货的订单")
		Expect(a).To(Equal(b))
	})

	It("gives the same bits on every machine", func() {
		// Pinned: a change here changes every recall index built with the
		// builtin embedder. Update deliberately, with the reason in the commit.
		v, _ := NewEmbedder(testRegistry())(ctx, "Show me the refunded orders in 华南 last week")
		h := sha256.New()
		for _, x := range v {
			_ = binary.Write(h, binary.LittleEndian, math.Float32bits(x))
		}
		Expect(hex.EncodeToString(h.Sum(nil))[:16]).To(Equal(embedGolden))
	})

	It("puts a request nearer its skill's text than a confusable one's", func() {
		embed := NewEmbedder(testRegistry())
		q, _ := embed(ctx, "华南区上周的订单有多少")
		orders, _ := embed(ctx, "看看华东区上周已发货的订单")
		alerts, _ := embed(ctx, "华东可用区昨天有哪些严重告警")
		Expect(cosine(q, orders)).To(BeNumerically(">", cosine(q, alerts)))
	})

	It("embeds text without features to the zero vector", func() {
		v, _ := NewEmbedder(testRegistry())(ctx, "。。。")
		Expect(vectorNorm(v)).To(BeZero())
	})

	It("stops on a cancelled context", func() {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := NewEmbedder(testRegistry())(cctx, "anything")
		Expect(err).To(MatchError(context.Canceled))
	})
})

const embedGolden = "1f8b3e15202e7232"

var _ = Describe("the embedder's features handed to the judge", func() {
	queryOf := func(m *model, text string, now time.Time) ([]int32, []float32) {
		sc := new(scratch)
		lower := lowerASCII(text)
		dates := findDates(lower, now)
		sc.dated, sc.lower, sc.dates = true, lower, appendSpans(nil, dates)
		m.query(sc, text)
		Expect(sc.dated).To(BeFalse())
		return sc.qIdx, sc.qVal
	}

	It("give the query featurizing the text gives, bit for bit", func() {
		m := newModel(testRegistry().Skills)
		now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		for _, text := range []string{"看看华东区上周已发货的订单", "Restart payment-api in STAGING", "orders from 2026-11-01 to 2026-11-15", "x", ""} {
			m.recent = new(featureMemo)
			wantIdx, wantVal := queryOf(m, text, now) // nothing remembered
			m.embed(text, nil)                        // remembers the text's features
			Expect(m.recent.text).To(Equal(text))
			gotIdx, gotVal := queryOf(m, text, now)
			Expect(gotIdx).To(Equal(wantIdx), text)
			Expect(gotVal).To(Equal(wantVal), text)
		}
	})

	It("are not taken for another text or other dates", func() {
		m := newModel(testRegistry().Skills)
		m.embed("orders of the east region", nil)
		_, _, ok := m.recent.load("orders of the west region", nil, nil, nil)
		Expect(ok).To(BeFalse())
		_, _, ok = m.recent.load("orders of the east region", []span{{0, 6}}, nil, nil)
		Expect(ok).To(BeFalse())
		w, ids, ok := m.recent.load("orders of the east region", nil, nil, nil)
		Expect(ok).To(BeTrue())
		Expect(w).To(HaveLen(len(ids)))
		Expect(w).NotTo(BeEmpty())
	})
})

// denseEmbed is embedText reading every bucket, as it did before it read
// only the buckets a feature touched.
func denseEmbed(m *model, text string) []float32 {
	sc := getScratch()
	defer putScratch(sc)
	var acc [EmbedDim]float64
	for _, tc := range sc.countTerms(text) {
		idf := m.unknownIDF(tc)
		if id, known := m.ids.get(tc.hash); known {
			idf = float64(m.idf[id])
		}
		w := termWeight(tc, idf)
		if tc.hash>>63 == 1 {
			w = -w
		}
		acc[tc.hash%EmbedDim] += w
	}
	out := make([]float32, EmbedDim)
	var norm float64
	for _, x := range acc {
		norm += float64(x * x)
	}
	if norm == 0 {
		return out
	}
	inv := 1 / math.Sqrt(norm)
	for i, x := range acc {
		out[i] = float32(float64(x * inv))
	}
	return out
}

var _ = Describe("an embedding", func() {
	It("has the bits of reading every bucket", func() {
		m := newModel(testRegistry().Skills)
		for _, text := range []string{"", "?!", "restart the gateway in staging", "退款 ORD-12345678 两百元",
			"the the the the", "a much longer request that names many things: zones, dates like 2031-05-02, amounts of 40 dollars and more"} {
			Expect(m.embedText(text)).To(Equal(denseEmbed(m, text)), "%q", text)
		}
	})
})
