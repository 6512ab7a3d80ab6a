package docsrun_test

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/docsrun"
)

// doc is a small document with every kind of block: one that runs, one marked skip, one
// that needs kafka, one that needs both servers, an indented one in a list, and fences that
// are not sh (a mark shown inside one is an example, not a mark).
const doc = "# title\n" + // 1
	"```sh\n" + // 2
	"clickgen run\n" + // 3
	"```\n" + // 4
	"<!-- docs-test: skip: the stand's containers -->\n" + // 5
	"```sh\n" + // 6
	"docker run clickgen --brokers kafka:9092\n" + // 7
	"```\n" + // 8
	"```json\n" + // 9
	"<!-- docs-test: needs redis -->\n" + // 10
	"{}\n" + // 11
	"```\n" + // 12
	"<!--docs-test: needs kafka-->\n" + // 13
	"```sh title\n" + // 14
	"clickgen run fill --brokers 127.0.0.1:9092\n" + // 15
	"```\n" + // 16
	"1. a step\n" + // 17
	"   <!-- docs-test: needs kafka clickhouse -->\n" + // 18
	"   ```sh\n" + // 19
	"   clickgen verify \\\n" + // 20
	"     --clickhouse http://127.0.0.1:8123\n" + // 21
	"   ```\n" + // 22
	"<!-- docs-test: starts kafka clickhouse -->\n" + // 23
	"```sh\n" + // 24
	".ci/kafka/kafka start store/kafka 127.0.0.1:9092\n" + // 25
	"```\n" // 26

func TestParseFindsBlocksAndMarks(t *testing.T) {
	got, err := docsrun.Parse("doc.md", doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []docsrun.Block{
		{Line: 2, Text: "clickgen run"},
		{Line: 6, Text: "docker run clickgen --brokers kafka:9092", Skip: "the stand's containers"},
		{Line: 14, Text: "clickgen run fill --brokers 127.0.0.1:9092", Needs: []string{"kafka"}},
		{Line: 19, Text: "clickgen verify \\\n  --clickhouse http://127.0.0.1:8123", Needs: []string{"kafka", "clickhouse"}},
		{Line: 24, Text: ".ci/kafka/kafka start store/kafka 127.0.0.1:9092", Starts: []string{"kafka", "clickhouse"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseRefusesBadMarks(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"<!-- docs-test: skip -->\n```sh\nx\n```\n", "doc.md:1: docs-test skip mark without a reason"},
		{"<!-- docs-test: skip: -->\n```sh\nx\n```\n", "doc.md:1: docs-test skip mark without a reason"},
		{"<!-- docs-test: skip:    -->\n```sh\nx\n```\n", "doc.md:1: docs-test skip mark without a reason"},
		{"<!-- docs-test: needs redis -->\n```sh\nx\n```\n", `doc.md:1: docs-test mark "needs redis": "redis" is not kafka or clickhouse`},
		{"<!-- docs-test: needs -->\n```sh\nx\n```\n", `doc.md:1: docs-test mark "needs": want skip: REASON`},
		{"<!-- docs-test: starts -->\n```sh\nx\n```\n", `doc.md:1: docs-test mark "starts": want skip: REASON`},
		{"<!-- docs-test: starts zookeeper -->\n```sh\nx\n```\n", `doc.md:1: docs-test mark "starts zookeeper": "zookeeper" is not kafka or clickhouse`},
		{"<!-- docs-test: run twice -->\n```sh\nx\n```\n", `doc.md:1: docs-test mark "run twice": want skip: REASON`},
		{"<!-- docs-test: skip: why -->\n```json\n{}\n```\n", "doc.md:1: a docs-test mark must be on the line right before a ```sh fence"},
		{"<!-- docs-test: skip: why -->\n\n```sh\nx\n```\n", "doc.md:1: a docs-test mark must be on the line right before a ```sh fence"},
		{"text\n<!-- docs-test: skip: why -->\n", "doc.md:2: a docs-test mark must be on the line right before a ```sh fence"},
		{"```sh\nx\n", "doc.md:1: the fence opened here is never closed"},
	} {
		_, err := docsrun.Parse("doc.md", tc.doc)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q…", tc.doc, err, tc.want)
		}
	}
}

func TestCheckNamesForeignHosts(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"clickgen run fill --brokers 127.0.0.1:9092 --create-topics", ""},
		{"B=localhost:9092; clickgen verify --brokers $B", ""},
		{"clickgen verify --clickhouse http://127.0.0.1:8123 --clickhouse-user analyst", ""},
		{"clickgen run stress --rate sine:10000/s±5000/s:60s --duration 15m", ""},
		{"clickgen run stress --rate ramp:1000/s-50000/s:5m --listen 127.0.0.1:0", ""},
		{"clickgen run  # on the stand: --brokers kafka:9092\n# or http://clickhouse:8123", ""},
		{"clickgen live --start 12:30 --day 1", ""},
		{"clickgen run fill --brokers kafka:9092", "names kafka:9092"},
		{"clickgen run stress --brokers=kafka-1:9092,kafka-2:9092", "names kafka-1:9092"},
		{"docker run -e KAFKA_BOOTSTRAP_SERVERS=kafka:9092 img", "names kafka:9092"},
		{"clickgen verify --clickhouse http://clickhouse:8123 --day 0", "names clickhouse"},
		{"clickgen verify --clickhouse 'http://analyst@ch.example.org/' --day 0", "names ch.example.org"},
		{"git clone https://github.com/clickgen/clickgen", "names github.com"},
		{"clickgen run --brokers 10.0.0.5:9092", "names 10.0.0.5:9092"},
		{"go test ./...", "runs go test"},
		{"cd x && go test -run TestX ./cmd/clickgen", "runs go test"},
	} {
		err := docsrun.Block{Line: 7, Text: tc.text}.Check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tc.text, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("Check(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
}

func TestPortsAndRewrite(t *testing.T) {
	text := "clickgen broker --listen 127.0.0.1:9092 & broker=$!\n" +
		"clickgen run --brokers 127.0.0.1:9092 --metrics-addr localhost:9100\n" +
		"clickgen broker --listen 127.0.0.1:0\n" +
		"clickgen verify --brokers 127.0.0.1:90921 --brokers kafka:9092"
	if got, want := docsrun.Ports(text), []int{9092, 9100, 90921}; !reflect.DeepEqual(got, want) {
		t.Errorf("Ports = %v, want %v", got, want)
	}
	got := docsrun.Rewrite(text, map[int]int{9092: 41001, 9100: 41002})
	want := "clickgen broker --listen 127.0.0.1:41001 & broker=$!\n" +
		"clickgen run --brokers 127.0.0.1:41001 --metrics-addr localhost:41002\n" +
		"clickgen broker --listen 127.0.0.1:0\n" +
		"clickgen verify --brokers 127.0.0.1:90921 --brokers kafka:9092"
	if got != want {
		t.Errorf("Rewrite:\n got %q\nwant %q", got, want)
	}
}

// TestScriptNamesTheFailingLine runs scripts of two blocks with bash: the second block's
// second command stops the script, by failing (the ERR trap says where), by reading an unset
// variable or sourcing a missing file (bash says where, the trap does not run). The first
// block's variable is seen by the second (one script, in sequence), nothing runs after the
// failure, and the line Failed reads maps back to the document's line.
func TestScriptNamesTheFailingLine(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is not on PATH")
	}
	for _, failing := range []string{"false", "echo $unset", ". ./no-such-file", "clickgen-no-such-command run"} {
		var s docsrun.Script
		s.Add(docsrun.Block{Line: 10}, "x=hello\necho $x")
		s.Add(docsrun.Block{Line: 20}, "echo $x again\n"+failing+"\necho never")
		out, err := exec.Command(bash, "-c", s.Text).CombinedOutput()
		if err == nil {
			t.Fatalf("the script with %q exited 0:\n%s", failing, out)
		}
		if !strings.Contains(string(out), "hello\nhello again\n") || strings.Contains(string(out), "never") {
			t.Errorf("the script with %q printed %q: want hello, hello again, and nothing after the failure", failing, out)
		}
		line, ok := docsrun.Failed(string(out))
		if !ok || s.DocLine(line) != 22 {
			t.Errorf("%q: Failed(%q) = script line %d (document line %d), %v; want document line 22", failing, out, line, s.DocLine(line), ok)
		}
		if s.DocLine(1) != 0 || s.DocLine(3) != 11 || s.DocLine(5) != 21 || s.DocLine(8) != 0 {
			t.Errorf("DocLine of the trap, the first block's first line, the second's, past the end = %d, %d, %d, %d; want 0, 11, 21, 0", s.DocLine(1), s.DocLine(3), s.DocLine(5), s.DocLine(8))
		}
	}
}
