package fileio

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCheckWrapsCause: a report that cannot be written says so in its own words and
// keeps the OS's reason for errors.Is, so a caller can tell a missing directory from a
// permission problem.
func TestReportCheckWrapsCause(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no such dir", "r.json")
	err := CheckReport(path)
	if err == nil || !strings.HasPrefix(err.Error(), "it cannot be written: ") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckReport(%s) = %v; want \"it cannot be written: ...\" wrapping fs.ErrNotExist", path, err)
	}
}
