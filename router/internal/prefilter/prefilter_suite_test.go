package prefilter_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/routebench/routebench/internal/specrun"
)

func TestPrefilter(t *testing.T) {
	RegisterFailHandler(Fail)
	specrun.RunSpecs(t, "Prefilter Suite")
}
