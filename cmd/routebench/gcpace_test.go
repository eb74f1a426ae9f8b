package main

import (
	"runtime/debug"
	"testing"

	. "github.com/onsi/gomega"
)

// The heap goal is the peak's allowance while the live heap is under half
// of it, and the default's twice the live heap otherwise: pacing never
// makes the GC run more often than GOGC=100 would.
func TestPacedPercent(t *testing.T) {
	g := NewWithT(t)
	const mb = 1 << 20
	g.Expect(pacedPercent(45*mb, 15*mb)).To(Equal(200), "45 MB allowed, 15 MB live: goal 15 × 3")
	g.Expect(pacedPercent(40*mb, 20*mb)).To(Equal(100), "exactly twice the live heap")
	g.Expect(pacedPercent(30*mb, 20*mb)).To(Equal(100), "less than twice: the default")
	g.Expect(pacedPercent(500*mb, 1*mb)).To(Equal(maxPace), "a tiny live heap: bounded")
	g.Expect(pacedPercent(45*mb, 0)).To(Equal(100), "no live heap measured yet")
}

func TestKilobytes(t *testing.T) {
	g := NewWithT(t)
	n, ok := kilobytes([]byte("\t  104012 kB"))
	g.Expect(ok).To(BeTrue())
	g.Expect(n).To(Equal(uint64(104012 << 10)))
	_, ok = kilobytes([]byte(" lots kB"))
	g.Expect(ok).To(BeFalse())
}

// Pacing changes GOGC only while it runs: stop puts the default back, and
// a GOGC the user set is left alone throughout.
func TestPaceGCUnderPeakRestoresGOGC(t *testing.T) {
	g := NewWithT(t)
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)
	stop := paceGCUnderPeak()
	stop()
	g.Expect(debug.SetGCPercent(100)).To(Equal(100))

	debug.SetGCPercent(50)
	stop = paceGCUnderPeak()
	g.Expect(debug.SetGCPercent(50)).To(Equal(50), "a GOGC of the user's is kept")
	stop()
	g.Expect(debug.SetGCPercent(100)).To(Equal(50))
}
