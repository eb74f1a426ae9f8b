package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A blob at a git revision is read with the same bound as a file on disk:
// over the limit, the loader receives limit+1 bytes (and reports the file
// as too large) instead of the whole blob.
func TestGitShowBoundedStopsAtTheLimit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	big := bytes.Repeat([]byte("x: 1\n"), 4000) // 20,000 bytes
	if err := os.WriteFile(filepath.Join(dir, "big.yaml"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.yaml"), []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-qm", "files")

	data, err := gitShowBounded(dir, "HEAD:big.yaml", 1000)
	if err != nil || len(data) != 1001 {
		t.Fatalf("gitShowBounded(big, 1000) = %d bytes, %v; want 1001 bytes", len(data), err)
	}
	data, err = gitShowBounded(dir, "HEAD:small.yaml", 1000)
	if err != nil || string(data) != "a: 1\n" {
		t.Fatalf("gitShowBounded(small) = %q, %v", data, err)
	}
	if _, err := gitShowBounded(dir, "HEAD:missing.yaml", 1000); err == nil {
		t.Fatal("gitShowBounded(missing) succeeded; want an error")
	}
}
