package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/logs"
)

func TestCutLogFormat(t *testing.T) {
	for _, tc := range []struct {
		args, rest []string
		f          logs.Format
		err        string
	}{
		{[]string{"batch", "--day", "0"}, []string{"batch", "--day", "0"}, logs.Text, ""},
		{[]string{"--log-format", "json", "batch"}, []string{"batch"}, logs.JSON, ""},
		{[]string{"batch", "--log-format=json", "--day", "0"}, []string{"batch", "--day", "0"}, logs.JSON, ""},
		{[]string{"batch", "--", "--log-format=json"}, []string{"batch", "--", "--log-format=json"}, logs.Text, ""},
		{[]string{"batch", "--log-format"}, nil, logs.Text, "--log-format needs a value: text or json"},
		{[]string{"--log-format", "xml"}, nil, logs.Text, "--log-format: "},
	} {
		rest, f, err := cutLogFormat(tc.args)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("cutLogFormat(%q) error = %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || f != tc.f || !slices.Equal(rest, tc.rest) {
			t.Errorf("cutLogFormat(%q) = %q, %v, %v; want %q, %v", tc.args, rest, f, err, tc.rest, tc.f)
		}
	}
}
