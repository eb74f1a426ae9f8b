package reports_test

import (
	"flag"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/internal/specrun"
)

// update rewrites testdata/*.golden from the current output:
// go test ./reports/ -update
var update = flag.Bool("update", false, "rewrite testdata/*.golden files")

func TestReports(t *testing.T) {
	RegisterFailHandler(Fail)
	// Not ginkgo.RunSpecs: `go test -count=3 -cpu=1,2,8` must work too.
	specrun.RunSpecs(t, "reports")
}
