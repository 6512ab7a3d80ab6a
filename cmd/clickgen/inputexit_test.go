package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputExitCodes (issue 31): `plot missing.json` exited 1. Every file a verb reads agrees:
// a file that does not exist, a directory, or a file that is not what the flag reads is a
// usage error (exit 2, with the hint to --help); a file the system fails to read (an I/O
// error: reading /proc/self/mem at offset 0 is EIO) is a failure (exit 1, no hint), where
// --merge, --catalog, --profile-file and --tls-ca used to call it a usage error.
func TestInputExitCodes(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	report := filepath.Join(dir, "report.json")
	for path, data := range map[string]string{junk: "<<not this>>\n", report: `{"topics": {}}`} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inputs := []struct {
		name string
		args func(path string) []string
	}{
		{"plot REPORT", func(p string) []string { return []string{"plot", p} }},
		{"plot --inventory", func(p string) []string { return []string{"plot", "--inventory", p, report} }},
		{"inventory --merge", func(p string) []string { return []string{"inventory", "--merge", p} }},
		{"--catalog", func(p string) []string { return []string{"inventory", "--day", "0", "--catalog", p} }},
		{"run --profile-file", func(p string) []string { return []string{"run", "--profile-file", p} }},
		{"profiles show --profile-file", func(p string) []string { return []string{"profiles", "show", "--profile-file", p} }},
		{"batch --tls-ca", func(p string) []string {
			return []string{"batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--tls-ca", p}
		}},
		{"verify --tls-ca", func(p string) []string {
			return []string{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--tls-ca", p}
		}},
		{"verify --clickhouse --tls-ca", func(p string) []string {
			return []string{"verify", "--day", "0", "--clickhouse", "https://127.0.0.1:1", "--tls-ca", p}
		}},
	}
	for _, in := range inputs {
		for _, tc := range []struct {
			what string
			path string
			code int
		}{
			{"missing", filepath.Join(dir, "missing.json"), 2},
			{"a directory", dir, 2},
			{"not what it reads", junk, 2},
			{"an I/O error", "/proc/self/mem", 1},
		} {
			t.Run(in.name+" "+tc.what, func(t *testing.T) {
				_, errs, code := clickgen(t, in.args(tc.path)...)
				hint := strings.Contains(errs, "for usage.")
				if code != tc.code || hint != (tc.code == 2) {
					t.Errorf("exit %d, stderr %q; want exit %d (a usage hint: %v)", code, errs, tc.code, tc.code == 2)
				}
				if tc.code == 1 && !strings.Contains(errs, "input/output error") {
					t.Errorf("stderr %q does not say the I/O error", errs)
				}
			})
		}
	}
}
