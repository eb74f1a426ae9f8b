package providers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/providers"
	"github.com/routebench/routebench/router/registry"
)

// badgeSkill is a made-up skill whose pin is x-sensitive.
func badgeSkill() *registry.Skill {
	skills, err := registry.ParseSkills("skills.yaml", []byte(`skills:
  - name: reset_badge
    description: reset the access badge of one employee
    side_effect: write
    confirm: normal
    permission_scope: [badges:write]
    params_schema:
      type: object
      properties:
        employee: {type: string}
        pin: {type: string, x-sensitive: true}
        digits: {type: integer, x-sensitive: true}
`))
	Expect(err).NotTo(HaveOccurred())
	return skills[0]
}

var _ = Describe("Cassettes and x-sensitive params", func() {
	var server *fakeProvider
	var dir string
	const text = `reset the badge of dana.k with pin "Qz-88/7" and 4 digits 5521`

	BeforeEach(func() {
		setenv("OPENAI_API_KEY", testKey)
		dir = GinkgoT().TempDir()
		server = newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			// The model normalised nothing but "digits" (a number), and
			// added a value the user never typed (pin2 is not sensitive).
			writeJSON(w, 200, chatToolCall("reset_badge", `{"employee":"dana.k","pin":"Qz-88/7","digits":5521,"confidence":0.97}`))
		})
	})
	request := func() router.JudgeRequest {
		req := judgeRequest(text)
		req.Candidates = []*registry.Skill{badgeSkill()}
		return req
	}
	judgeWith := func(mode providers.CassetteMode) router.Judge {
		o := fastOptions(server.URL)
		o.Cassettes, o.CassetteDir = mode, dir
		j, err := newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		return j
	}

	It("stores the answer and the request with the values masked, and a replay gives them back", func() {
		recorded, err := judgeWith(providers.CassettesRecord).Judge(context.Background(), request())
		Expect(err).NotTo(HaveOccurred())
		Expect(contract(recorded.Raw)["params"]).To(Equal(map[string]any{"employee": "dana.k", "pin": "Qz-88/7", "digits": 5521.0}),
			"the recording run itself sees the real answer")

		files := readDir(dir)
		Expect(files).To(HaveLen(1))
		for _, content := range files {
			Expect(content).NotTo(ContainSubstring("Qz-88"))
			Expect(content).NotTo(ContainSubstring("5521"))
			Expect(content).To(ContainSubstring(`\"pin\":\"***\"`))
			Expect(content).To(ContainSubstring("dana.k"), "params that are not sensitive stay")
			var entry struct {
				Masked []map[string]any `json:"masked"`
			}
			Expect(json.Unmarshal([]byte(content), &entry)).To(Succeed())
			Expect(entry.Masked).To(HaveLen(2))
		}

		server.Close()
		replayed, err := judgeWith(providers.CassettesReplay).Judge(context.Background(), request())
		Expect(err).NotTo(HaveOccurred())
		Expect(replayed.Raw).To(Equal(recorded.Raw))
	})

	It("masks in the stored request the values the caller expects, though the answer holds none", func() {
		refusing := newFakeProvider(func(w http.ResponseWriter, r *http.Request, n int) {
			writeJSON(w, 200, chatToolCall("reset_badge", `{"employee":"dana.k","confidence":0.31}`))
		})
		o := fastOptions(refusing.URL)
		o.Cassettes, o.CassetteDir = providers.CassettesRecord, dir
		j, err := newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		ctx := router.WithMaskValues(context.Background(), []string{"Qz-88/7"})
		recorded, err := j.Judge(ctx, request())
		Expect(err).NotTo(HaveOccurred())
		files := readDir(dir)
		Expect(files).To(HaveLen(1))
		for _, content := range files {
			Expect(content).NotTo(ContainSubstring("Qz-88"), "the user's text in the stored request")
			Expect(content).To(ContainSubstring("dana.k"))
		}

		refusing.Close()
		o.Cassettes = providers.CassettesReplay
		j, err = newGateway(o).Judge("openai:gpt-4o-mini")
		Expect(err).NotTo(HaveOccurred())
		replayed, err := j.Judge(context.Background(), request())
		Expect(err).NotTo(HaveOccurred(), "the key is the request as sent, not as stored")
		Expect(replayed.Raw).To(Equal(recorded.Raw))
	})

	It("replays a value the user's text does not hold as ***", func() {
		other := "reset the badge of dana.k, the pin is in the ticket"
		_, err := judgeWith(providers.CassettesRecord).Judge(context.Background(), func() router.JudgeRequest { r := request(); r.Text = other; return r }())
		Expect(err).NotTo(HaveOccurred())
		server.Close()
		r := request()
		r.Text = other
		replayed, err := judgeWith(providers.CassettesReplay).Judge(context.Background(), r)
		Expect(err).NotTo(HaveOccurred())
		params := contract(replayed.Raw)["params"].(map[string]any)
		Expect(params["pin"]).To(Equal("***"))
		Expect(params["employee"]).To(Equal("dana.k"))
		for _, content := range readDir(dir) {
			Expect(strings.Contains(content, "Qz-88")).To(BeFalse())
		}
	})
})
