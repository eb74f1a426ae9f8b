package gate_test

import (
	"github.com/routebench/routebench/internal/specrun"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestGate(t *testing.T) {
	RegisterFailHandler(Fail)
	specrun.RunSpecs(t, "gate")
}
