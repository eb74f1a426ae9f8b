package builtin

import (
	"github.com/routebench/routebench/internal/specrun"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestBuiltin(t *testing.T) {
	RegisterFailHandler(Fail)
	specrun.RunSpecs(t, "Builtin models")
}
