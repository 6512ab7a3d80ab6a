package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyEnvIsAbsent is issue 11 item 3: GENERATOR_DAY= (a template rendering an unset
// variable) is not day 0; GENERATOR_FILE= and KAFKA_BOOTSTRAP_SERVERS= are no sink either.
func TestEmptyEnvIsAbsent(t *testing.T) {
	t.Setenv("GENERATOR_DAY", "")
	_, errs, code := clickgen(t, "batch", "--file", filepath.Join(t.TempDir(), "h.jsonl"), "--limit", "1")
	if code != 2 || !strings.Contains(errs, "--day is required") {
		t.Errorf("GENERATOR_DAY=: exit %d, stderr %q; want exit 2, --day is required", code, errs)
	}
	t.Setenv("GENERATOR_FILE", "")
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", "")
	_, errs, code = clickgen(t, "batch", "--day", "0", "--limit", "1")
	if code != 2 {
		t.Errorf("GENERATOR_FILE= KAFKA_BOOTSTRAP_SERVERS=: exit %d, stderr %q; want exit 2 (no sink)", code, errs)
	}
}
