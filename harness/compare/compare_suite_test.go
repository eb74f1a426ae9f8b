package compare_test

import (
	"flag"
	"github.com/routebench/routebench/internal/specrun"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// update rewrites golden files: go test ./harness/compare/ -args -update
var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func TestCompare(t *testing.T) {
	RegisterFailHandler(Fail)
	specrun.RunSpecs(t, "compare")
}
