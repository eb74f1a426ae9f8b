package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestFirstAttachedCodeWins(t *testing.T) {
	base := errors.New("boom")
	err := With(GateFailed, With(Usage, base))
	if got := Of(err); got != Usage {
		t.Fatalf("Of = %d, want the first attached code %d", got, Usage)
	}
	wrapped := fmt.Errorf("run: %w", With(RunError, base))
	if got := Of(wrapped); got != RunError {
		t.Fatalf("Of(wrapped) = %d, want %d", got, RunError)
	}
	if !errors.Is(wrapped, base) {
		t.Fatal("the code must not hide the cause from errors.Is")
	}
}

func TestDefaults(t *testing.T) {
	if Of(nil) != Pass {
		t.Fatal("nil is a pass")
	}
	if Of(errors.New("plain")) != RunError {
		t.Fatal("an error without a code is a run error")
	}
	if With(Usage, nil) != nil {
		t.Fatal("With(nil) must stay nil")
	}
	if err := Usagef("bad %s", "flag"); Of(err) != Usage || err.Error() != "bad flag" {
		t.Fatalf("Usagef = %v (%d)", err, Of(err))
	}
}
