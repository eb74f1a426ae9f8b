package reports_test

import (
	"flag"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// update rewrites testdata/*.golden from the current output:
// go test ./reports/ -update
var update = flag.Bool("update", false, "rewrite testdata/*.golden files")

func TestReports(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reports")
}
