package fastyaml

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type yamlFile struct {
	name string
	data []byte
}

// repositoryYAML reads the .yaml files under the repository's suites/,
// fixtures/ and harness/testdata/.
func repositoryYAML(tb testing.TB) []yamlFile {
	tb.Helper()
	var files []yamlFile
	for _, dir := range []string{"../../suites", "../../fixtures", "../../harness/testdata"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files = append(files, yamlFile{filepath.ToSlash(path), data})
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	if len(files) == 0 {
		tb.Fatal("no YAML files found")
	}
	return files
}
