package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"path/filepath"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// clickgen runs the CLI in-process and returns stdout, stderr and the exit code main would
// use. (The tests of the built command, as a separate process, are cmd/clickgen/tests'.)
func clickgen(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	args = raceUncompressed(args)
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	code := exitCode(err, &errb)
	return out.String(), errb.String(), code
}

func TestSchemaKeys(t *testing.T) {
	for _, tc := range []struct {
		entity      string
		n           int
		first, last string
	}{{"hits", 47, "WatchID", "ecommerce"}, {"orders", 11, "order_id", "snapshot_date"}} {
		out, errs, code := clickgen(t, "schema", "--entity", tc.entity, "--format", "keys")
		if code != 0 {
			t.Fatalf("schema --entity %s: exit %d, %s", tc.entity, code, errs)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != tc.n || lines[0] != tc.first || lines[len(lines)-1] != tc.last {
			t.Errorf("schema --entity %s --format keys: %d lines %s…%s, want %d lines %s…%s",
				tc.entity, len(lines), lines[0], lines[len(lines)-1], tc.n, tc.first, tc.last)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{}, {"nope"}, {"schema", "--format", "xml"}, {"schema", "--entity", "users"}, {"schema", "--bogus"}, {"schema", "extra"},
	} {
		if _, _, code := clickgen(t, args...); code != 2 {
			t.Errorf("clickgen %q: exit %d, want 2", args, code)
		}
	}
	out, _, code := clickgen(t, "schema", "--help")
	if code != 0 || !strings.Contains(out, "--format") {
		t.Errorf("schema --help: exit %d, output %q", code, out)
	}
	out, _, code = clickgen(t, "version")
	if code != 0 || !strings.Contains(out, "world 0.") {
		t.Errorf("version: exit %d, output %q", code, out)
	}
}

// compileSchema renders the JSON Schema of entity through the CLI and compiles it with an
// independent validator.
func compileSchema(t *testing.T, entity string) *jsonschema.Schema {
	t.Helper()
	out, errs, code := clickgen(t, "schema", "--entity", entity, "--format", "json-schema")
	if code != 0 {
		t.Fatalf("schema json-schema: exit %d: %s", code, errs)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(entity+".json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(entity + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validate(t *testing.T, s *jsonschema.Schema, msg []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil {
		t.Fatalf("unmarshal %s: %v", msg, err)
	}
	return s.Validate(v)
}

// dropKey returns msg without key (re-marshalled; order does not matter to JSON Schema).
func dropKey(t *testing.T, msg []byte, key string) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m[key]; !ok {
		t.Fatalf("example has no key %s", key)
	}
	delete(m, key)
	b, _ := json.Marshal(m)
	return b
}

func TestJSONSchemaValidatesExamples(t *testing.T) {
	for _, tc := range []struct {
		entity string
		files  []string
		drop   string
	}{
		{"hits", []string{"hit_pageview.golden", "hit_purchase.golden"}, "UTCEventTime"},
		{"orders", []string{"order_example.golden"}, "discount"},
	} {
		s := compileSchema(t, tc.entity)
		for _, f := range tc.files {
			msg, err := os.ReadFile("../../schema/testdata/" + f)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(t, s, msg); err != nil {
				t.Errorf("%s: the spec's example is rejected: %v", f, err)
			}
			if err := validate(t, s, dropKey(t, msg, tc.drop)); err == nil {
				t.Errorf("%s without %s: accepted, want rejected", f, tc.drop)
			}
			extra := append(bytes.TrimSuffix(bytes.TrimSpace(msg), []byte("}")), []byte(`,"extra":1}`)...)
			if err := validate(t, s, extra); err == nil {
				t.Errorf("%s with an extra key: accepted, want rejected", f)
			}
		}
	}
	// A money string with three decimals and a time without milliseconds break the patterns.
	s := compileSchema(t, "orders")
	msg, _ := os.ReadFile("../../schema/testdata/order_example.golden")
	for _, bad := range []string{
		strings.Replace(string(msg), `"299.00"`, `"299.000"`, 1),
		strings.Replace(string(msg), `09:15:42.317Z`, `09:15:42Z`, 1),
		strings.Replace(string(msg), `"paid"`, `"shipped"`, 1),
	} {
		if err := validate(t, s, []byte(bad)); err == nil {
			t.Errorf("accepted a broken order: %s", bad)
		}
	}
}

// TestHelpOfHelp: `clickgen help --help` (and help help, help -h) prints the main help; it
// recursed until the stack overflowed, as help turned into `--help --help` forever.
func TestHelpOfHelp(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "help"} {
		out, errs, code := clickgen(t, "help", arg)
		if code != 0 || !strings.Contains(out, "Verbs:") {
			t.Errorf("clickgen help %s: exit %d, stdout %q, stderr %q; want 0 and the main help", arg, code, out, errs)
		}
	}
}

// refused runs clickgen with args and fails unless it exits 2 with want in stderr and file
// (if not "") was not created. It returns stderr's first line, the refusal.
func refused(t *testing.T, file, want string, args ...string) string {
	t.Helper()
	_, errs, code := clickgen(t, args...)
	if code != 2 || !strings.Contains(errs, want) {
		t.Fatalf("%v: exit %d, stderr %q; want exit 2 saying %q", args, code, errs, want)
	}
	if file != "" {
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%v: %s was created before the refusal", args, file)
		}
	}
	line, _, _ := strings.Cut(errs, "\n")
	return line
}

// TestIgnoredCombinationsRefused is part of issue 11 item 10: combinations that were accepted
// and silently meant nothing, or sent one kind into the other kind's topic.
func TestIgnoredCombinationsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"batch", "--day", "0", "--file", file, "--workers", "-1"}, "--workers -1"},
		{[]string{"batch", "--day", "0", "--file", file, "--garbage-mix", "not_an_object=1"}, "--garbage-mix without --garbage"},
		{[]string{"batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "orders"}, "topic orders is for orders"},
		{[]string{"snapshot", "--day", "1", "--brokers", "127.0.0.1:1", "--topic", "hits"}, "topic hits is for hits"},
		{[]string{"run", "--workers", "-2"}, "--workers -2"},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, errs, tc.want)
		}
	}
	out, _, _ := clickgen(t, "help")
	if !strings.Contains(out, "130 interrupted") {
		t.Errorf("top-level help does not list exit code 130:\n%s", out)
	}
}
