package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// staleReport is what an earlier successful run left: the report a failing run used to leave
// in place.
const staleReport = `{"ok": true, "stale": "from an earlier run"}` + "\n"

// reportMeta is the part of a report every command writes (fileio.ReportMeta), and its document's
// keys.
type reportMeta struct {
	OK        *bool             `json:"ok"`
	Error     string            `json:"error"`
	WrittenAt string            `json:"written_at"`
	Command   string            `json:"command"`
	Settings  map[string]string `json:"settings"`
	Stale     string            `json:"stale"`
	Topics    json.RawMessage   `json:"topics"`
	Hits      json.RawMessage   `json:"hits"`
}

// staleFile writes the stale report into a new folder and returns its path.
func staleFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, []byte(staleReport), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readMeta reads a report's meta keys and checks that they say when and by what command it
// was written, and that the stale report is gone.
func readMeta(t *testing.T, path, command string, ok bool) reportMeta {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no report: %v", err)
	}
	var m reportMeta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("the report: %v\n%s", err, b)
	}
	at, err := time.Parse(time.RFC3339Nano, m.WrittenAt)
	switch {
	case m.Stale != "":
		t.Errorf("the stale report stayed:\n%s", b)
	case m.OK == nil || *m.OK != ok:
		t.Errorf("the report's ok is %v, want %v:\n%s", m.OK, ok, b)
	case ok != (m.Error == ""):
		t.Errorf("the report's error is %q with ok %v", m.Error, ok)
	case err != nil || time.Since(at) > time.Hour || time.Until(at) > time.Hour:
		t.Errorf("written_at %q: %v; want when it was written", m.WrittenAt, err)
	case m.Command != command || m.Settings["report"] != path:
		t.Errorf("command %q, settings %v; want %s and its flags", m.Command, m.Settings, command)
	}
	return m
}

// closedPort is a loopback port nobody listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestFailedRunReplacesStaleReport is issue 35's finding: a failing run or verify left the
// previous "ok": true report in place, and reports carried no time. A verb that fails once it
// has checked its files writes its own report — ok false, the error, when, the verb and its
// settings, and the document as far as it got — and one that succeeds says ok true the same
// way; a usage error (exit 2) touches no file.
func TestFailedRunReplacesStaleReport(t *testing.T) {
	_, addr := kfakeCluster(t)
	down := closedPort(t)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		ok       bool
		saying   string // in the report's error
		document bool   // the report holds the run's document
	}{
		{name: "batch cannot reach Kafka", args: []string{"batch", "--day", "0", "--brokers", down, "--topic", "hits", "--connect-timeout", "300ms"},
			code: 1, saying: "cannot reach Kafka"},
		{name: "batch crosses a threshold", args: []string{"batch", "--day", "0", "--limit", "50", "--brokers", addr, "--topic", "hits", "--threshold", "failed>0"},
			code: 3, saying: "failed>0", document: true},
		{name: "batch succeeds", args: []string{"batch", "--day", "0", "--limit", "50", "--brokers", addr, "--topic", "hits"},
			code: 0, ok: true, document: true},
		{name: "verify cannot reach Kafka", args: []string{"verify", "--day", "0", "--brokers", down, "--connect-timeout", "300ms"},
			code: 1, saying: "cannot read topics"},
		{name: "verify --clickhouse cannot reach the store", args: []string{"verify", "--day", "0", "--clickhouse", "http://" + down},
			code: 1, saying: "cannot read ClickHouse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := staleFile(t)
			_, errs, code := clickgen(t, append(tc.args, "--report", path)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, errs)
			}
			m := readMeta(t, path, tc.args[0], tc.ok)
			if !strings.Contains(m.Error, tc.saying) || tc.document != (m.Topics != nil) {
				t.Errorf("error %q, document %v; want it saying %q, document %v", m.Error, m.Topics != nil, tc.saying, tc.document)
			}
			if m.Settings["day"] != "0" {
				t.Errorf("settings %v lack --day 0", m.Settings)
			}
		})
	}
	t.Run("usage error", func(t *testing.T) {
		path := staleFile(t)
		if _, _, code := clickgen(t, "batch", "--day", "-1", "--file", filepath.Join(t.TempDir(), "out"), "--report", path); code != 2 {
			t.Fatalf("exit %d, want 2", code)
		}
		if b, _ := os.ReadFile(path); string(b) != staleReport {
			t.Errorf("a usage error touched the report:\n%s", b)
		}
	})
}

// TestReportNeverHoldsASecret: the settings a report carries never hold a secret: passwords
// are not flags, and a failure report written while a SASL password was set does not show it.
func TestReportNeverHoldsASecret(t *testing.T) {
	const secret = "sasl-pw-never-in-a-report"
	t.Setenv(sinkPasswordEnv, secret)
	path := staleFile(t)
	_, errs, code := clickgen(t, "batch", "--day", "0", "--brokers", closedPort(t), "--topic", "hits", "--connect-timeout", "300ms",
		"--sasl-mechanism", "PLAIN", "--sasl-user", "alice", "--report", path)
	b, _ := os.ReadFile(path)
	if code != 1 || strings.Contains(string(b)+errs, secret) {
		t.Errorf("exit %d; the secret shows in the report or on stderr:\n%s\n%s", code, b, errs)
	}
	readMeta(t, path, "batch", false)
}

// brokenPipe is a stdout whose reader went away (verify | head -1).
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestVerifyReportWithClosedStdout is issue 35's P15: `verify | head -1` wrote no report (the
// table's failure returned before it). The report is written with the result, ok false and
// the write's error; the exit code is 1.
func TestVerifyReportWithClosedStdout(t *testing.T) {
	_, addr := kfakeCluster(t)
	if _, errs, code := clickgen(t, "batch", "--day", "0", "--brokers", addr, "--topic", "hits", "--scale", "0.3"); code != 0 {
		t.Fatalf("batch: exit %d: %s", code, errs)
	}
	path := staleFile(t)
	var errb bytes.Buffer
	err := run(context.Background(), []string{"verify", "--day", "0", "--scale", "0.3", "--brokers", addr, "--report", path}, brokenPipe{}, &errb)
	if code := exitCode(err, &errb); code != 1 || !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("exit %d (%v), want 1 for the broken pipe:\n%s", code, err, errb.String())
	}
	m := readMeta(t, path, "verify", false)
	if m.Hits == nil || !strings.Contains(m.Error, "broken pipe") {
		t.Errorf("the report holds the result %v and the error %q; want both", m.Hits != nil, m.Error)
	}
}

// TestUsageErrorAfterFilesWritesNoReport: a usage error found once the files were checked (a
// warm-up refused once the plan is known) is exit 2 and touches no file, as one found before.
func TestUsageErrorAfterFilesWritesNoReport(t *testing.T) {
	path := staleFile(t)
	_, errs, code := clickgen(t, "batch", "--day", "0", "--file", filepath.Join(t.TempDir(), "out"), "--warmup", "-1s", "--report", path)
	if code != 2 || !strings.Contains(errs, "--warmup -1s") {
		t.Fatalf("exit %d, want 2:\n%s", code, errs)
	}
	if b, _ := os.ReadFile(path); string(b) != staleReport {
		t.Errorf("a usage error touched the report:\n%s", b)
	}
}
