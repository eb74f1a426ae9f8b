package calibrate

import (
	"github.com/routebench/routebench/router"
	"github.com/routebench/routebench/router/registry"
)

// Band is the router's stage-4 rule (router's unexported band): a
// confidence at or above execute acts (confirm for a side-effect skill,
// execute for a read skill), at or above clarify asks, below it refuses.
// It is mirrored here because calibrate re-derives decisions offline; the
// package's specs check that the mirror agrees with the router's decisions.
func Band(conf float64, se registry.SideEffect, execute, clarify float64) router.Action {
	switch {
	case conf >= execute && se.Acts():
		return router.Confirm
	case conf >= execute:
		return router.Execute
	case conf >= clarify:
		return router.Clarify
	default:
		return router.Refuse
	}
}

// region is which of a banded record's outcomes a band pair selects.
func (r *Record) region(execute, clarify float64) int {
	switch Band(r.Confidence, r.SideEffect, execute, clarify) {
	case router.Execute, router.Confirm:
		return regionAct
	case router.Clarify:
		return regionClarify
	default:
		return regionRefuse
	}
}

// outcomeAt is the record's decision at one band pair.
func (r *Record) outcomeAt(execute, clarify float64) *Outcome {
	if !r.Banded {
		return &r.Outcomes[regionAct]
	}
	return &r.Outcomes[r.region(execute, clarify)]
}

// At is the record's decision under a version's bands, looked up for the
// chosen skill's side effect exactly as the router does.
func (r *Record) At(b registry.Bands) Outcome {
	if !r.Banded {
		return r.Outcomes[regionAct]
	}
	execute, clarify := b.For(r.SideEffect)
	return *r.outcomeAt(execute, clarify)
}

// Class is a side-effect class that gets its own bands: read skills
// execute, the others confirm behind a gate.
type Class string

const (
	ClassRead       Class = "read"
	ClassSideEffect Class = "write/delete/send"
)

// Classes lists the classes in report order.
var Classes = []Class{ClassRead, ClassSideEffect}

// ClassOf is the class of a side effect. Write, delete and send are pooled:
// each alone rarely has enough labelled cases for a Wilson bound anywhere
// near a useful target.
func ClassOf(se registry.SideEffect) Class {
	if se.Acts() {
		return ClassSideEffect
	}
	return ClassRead
}

// SideEffects are the side effects a class covers.
func (c Class) SideEffects() []registry.SideEffect {
	if c == ClassSideEffect {
		return []registry.SideEffect{registry.Write, registry.Delete, registry.Send}
	}
	return []registry.SideEffect{registry.Read}
}
