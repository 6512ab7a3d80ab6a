// Package docsrun reads the shell recipes of clickgen's documents (README.md, docs/*.md) so
// that a test can run every one of them, in sequence, as a newcomer would (issue 31). A
// recipe is a fenced block whose info string is sh (```sh). The line right before its fence
// may hold one mark, an HTML comment a reader of the rendered page does not see:
//
//	<!-- docs-test: skip: REASON -->    the block is not run here; REASON (required) says why
//	                                    (the stand's containers, `go test` itself, hosts such
//	                                    as kafka:9092 that only the stand has)
//	<!-- docs-test: needs kafka -->     the block runs against a real Kafka node the test
//	                                    starts: 127.0.0.1:9092 becomes its address
//	<!-- docs-test: needs clickhouse --> the same with a real ClickHouse server (18.16):
//	                                    127.0.0.1:8123 becomes its HTTP address
//	<!-- docs-test: starts kafka clickhouse -->
//	                                    the block starts these servers itself, with the
//	                                    repository's scripts (.ci/kafka/kafka,
//	                                    .ci/clickhouse/clickhouse), as a reader would: the
//	                                    test only checks that their tiers can run here
//
// `needs kafka clickhouse` asks for both. A document that needs both gets the stand's
// pipeline laid out on the server, reading the test's Kafka (hits stream in; orders wait for
// the stand's orders_ingest, which the test does not run). A document whose block needs or
// starts a server whose tier CLICKGEN_TIERS does not select is skipped, and fails when the
// tier is selected but cannot run here. Every other loopback port
// (127.0.0.1:N, localhost:N) becomes a free port of the test's own, the same in every block
// of the document, with N+1, N+2 and N+100 free too (the ports the scripts derive from N: a
// ClickHouse server's native and interserver ports, a Kafka node's controller). Any other
// docs-test comment, or one not right before a ```sh fence, is an error, so that a mark
// cannot be mistyped or misplaced into silence.
//
// A block that runs may name no host but 127.0.0.1 and localhost ([Block.Check]): one that
// does needs a skip mark, so a forgotten mark fails instead of reaching out of the machine.
//
// The package is test code only, every file a _test.go file: nothing but its tests reads
// recipes, so none of it is built into anything.
package docsrun

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Block is one ```sh block of a document.
type Block struct {
	Line   int      // the line of the opening fence, 1-based
	Text   string   // the lines between the fences, without the fence's indentation
	Skip   string   // the reason of a skip mark; "" when the block runs
	Needs  []string // "kafka", "clickhouse": what the block's needs mark asks for
	Starts []string // "kafka", "clickhouse": the servers the block starts itself (a starts mark)
}

// NeedsService says whether the block's needs mark asks for service (kafka, clickhouse).
func (b Block) NeedsService(service string) bool {
	return slices.Contains(b.Needs, service)
}

// StartsService says whether the block's starts mark says it starts service itself.
func (b Block) StartsService(service string) bool {
	return slices.Contains(b.Starts, service)
}

// services are the words a needs mark may hold.
var services = map[string]bool{"kafka": true, "clickhouse": true}

var markRE = regexp.MustCompile(`^\s*<!--\s*docs-test:(.*?)-->\s*$`)

// Parse returns the ```sh blocks of the document text, named file in its errors, with their
// marks. It fails on a malformed or misplaced mark and on a fence left open.
func Parse(file, text string) ([]Block, error) {
	lines := strings.Split(text, "\n")
	var blocks []Block
	for i := 0; i < len(lines); i++ {
		if m := markRE.FindStringSubmatch(lines[i]); m != nil {
			if i+1 >= len(lines) || fenceInfo(lines[i+1]) != "sh" {
				return nil, fmt.Errorf("%s:%d: a docs-test mark must be on the line right before a ```sh fence", file, i+1)
			}
			continue
		}
		info := fenceInfo(lines[i])
		if info == "" && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
			continue
		}
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("%s:%d: the fence opened here is never closed", file, i+1)
		}
		if info == "sh" {
			b := Block{Line: i + 1, Text: dedent(lines[i+1:end], indent)}
			if i > 0 {
				if m := markRE.FindStringSubmatch(lines[i-1]); m != nil {
					if err := b.mark(strings.TrimSpace(m[1])); err != nil {
						return nil, fmt.Errorf("%s:%d: %v", file, i, err)
					}
				}
			}
			blocks = append(blocks, b)
		}
		i = end
	}
	return blocks, nil
}

// fenceInfo is the first word of a fence line's info string, "" when the line opens no
// fence or has no info string.
func fenceInfo(line string) string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "```")
	if !ok {
		return ""
	}
	if f := strings.Fields(rest); len(f) > 0 {
		return f[0]
	}
	return ""
}

// dedent removes up to indent leading spaces of each line and joins the lines.
func dedent(lines []string, indent int) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		n := min(indent, len(l)-len(strings.TrimLeft(l, " ")))
		out[i] = l[n:]
	}
	return strings.Join(out, "\n")
}

// mark applies the body of a docs-test comment to b.
func (b *Block) mark(body string) error {
	if reason, ok := strings.CutPrefix(body, "skip"); ok {
		reason = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(reason), ":"))
		if reason == "" {
			return fmt.Errorf("docs-test skip mark without a reason: write <!-- docs-test: skip: REASON -->")
		}
		b.Skip = reason
		return nil
	}
	words := strings.Fields(body)
	if len(words) < 2 || words[0] != "needs" && words[0] != "starts" {
		return fmt.Errorf("docs-test mark %q: want skip: REASON, needs kafka|clickhouse or starts kafka|clickhouse", body)
	}
	for _, w := range words[1:] {
		if !services[w] {
			return fmt.Errorf("docs-test mark %q: %q is not kafka or clickhouse", body, w)
		}
		if words[0] == "starts" {
			b.Starts = append(b.Starts, w)
		} else {
			b.Needs = append(b.Needs, w)
		}
	}
	return nil
}

var (
	// urlRE finds the host of a URL (after an optional user@).
	urlRE = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://(?:[^\s/@'"]*@)?([^\s/:'"?#]+)`)
	// hostPortRE finds HOST:PORT standing as a word of its own (kafka:9092, -e X=kafka-1:9092);
	// a port followed by / is a rate or a shape (sine:10000/s...), not an address.
	hostPortRE = regexp.MustCompile(`(?:^|[\s=,'"@(])([A-Za-z0-9][A-Za-z0-9.-]*):([0-9]{1,5})(?:$|[\s,'";)&|])`)
	// commentRE is a shell comment: # at the start of a line or after a blank.
	commentRE = regexp.MustCompile(`(?m)(^|\s)#.*$`)
	// goTestRE is a command running Go's tests.
	goTestRE = regexp.MustCompile(`(?m)(^|[\s;&|(])go\s+test\b`)
)

// Check says why a block that runs cannot be run by the test as written: it names a host
// other than 127.0.0.1 and localhost (the stand's kafka:9092, a URL), or it runs go test
// (the test would run itself). Comments are not read.
func (b Block) Check() error {
	text := commentRE.ReplaceAllString(b.Text, "$1")
	if goTestRE.MatchString(text) {
		return fmt.Errorf("block at line %d runs go test, which would run this test again: mark it <!-- docs-test: skip: REASON -->", b.Line)
	}
	var hosts []string
	for _, m := range urlRE.FindAllStringSubmatch(text, -1) {
		hosts = append(hosts, m[1])
	}
	for _, m := range hostPortRE.FindAllStringSubmatch(text, -1) {
		if strings.Trim(m[1], "0123456789") != "" { // 12:30 is a time, not a host
			hosts = append(hosts, m[1]+":"+m[2])
		}
	}
	var foreign []string
	for _, h := range hosts {
		name, _, _ := strings.Cut(h, ":")
		if name != "127.0.0.1" && name != "localhost" && !slices.Contains(foreign, h) {
			foreign = append(foreign, h)
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("block at line %d names %s, not on this machine: mark it <!-- docs-test: skip: REASON --> or use 127.0.0.1", b.Line, strings.Join(foreign, ", "))
	}
	return nil
}

// loopbackRE is a loopback address with a port.
var loopbackRE = regexp.MustCompile(`\b(127\.0\.0\.1|localhost):([0-9]{1,5})\b`)

// Ports are the ports of the loopback addresses (127.0.0.1:N, localhost:N) in text, each
// once, in order of appearance; port 0 (any free port) is left out.
func Ports(text string) []int {
	var ports []int
	seen := map[int]bool{}
	for _, m := range loopbackRE.FindAllStringSubmatch(text, -1) {
		p, _ := strconv.Atoi(m[2])
		if p != 0 && !seen[p] {
			seen[p] = true
			ports = append(ports, p)
		}
	}
	return ports
}

// Rewrite replaces the port of every loopback address in text that ports maps; the host is
// kept.
func Rewrite(text string, ports map[int]int) string {
	return loopbackRE.ReplaceAllStringFunc(text, func(addr string) string {
		m := loopbackRE.FindStringSubmatch(addr)
		p, _ := strconv.Atoi(m[2])
		if to, ok := ports[p]; ok {
			return m[1] + ":" + strconv.Itoa(to)
		}
		return addr
	})
}

// Trap is the first lines of a script: bash stops at the first command that fails (set -euo
// pipefail) and says which line of the script it was in a line [Failed] reads back.
const Trap = "set -euo pipefail\n" +
	`trap 'echo "docs-test: exit $? at script line $LINENO: $BASH_COMMAND" >&2' ERR` + "\n"

var (
	trapRE = regexp.MustCompile(`docs-test: exit [0-9]+ at script line ([0-9]+): `)
	// bashRE is bash's own message for what stops a script without the ERR trap: an unset
	// variable under set -u, a file . cannot read, a syntax error.
	bashRE = regexp.MustCompile(`(?m)^(?:\S*/)?bash: line ([0-9]+): `)
)

// Failed is the script line at which the script's output says it stopped: the last line
// [Trap] printed, else the last error bash printed itself; ok is false when there is none.
func Failed(output string) (line int, ok bool) {
	for _, re := range []*regexp.Regexp{trapRE, bashRE} {
		if all := re.FindAllStringSubmatch(output, -1); len(all) > 0 {
			line, _ = strconv.Atoi(all[len(all)-1][1])
			return line, true
		}
	}
	return 0, false
}

// Script is the blocks as one bash script: [Trap], then each block's text as the test
// rewrote it. Lines holds, for each line of the script (1-based, Lines[0] unused), the
// document line it came from, 0 for the trap's.
type Script struct {
	Text  string
	Lines []int
}

// Add appends block b as text (b's text rewritten for the test, with as many lines).
func (s *Script) Add(b Block, text string) {
	if s.Text == "" {
		s.Text = Trap
		s.Lines = make([]int, 1+strings.Count(Trap, "\n"))
	}
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		s.Text += l + "\n"
		s.Lines = append(s.Lines, b.Line+1+i)
	}
}

// DocLine is the document line of script line n, 0 when it is none of the document's.
func (s *Script) DocLine(n int) int {
	if n < 1 || n >= len(s.Lines) {
		return 0
	}
	return s.Lines[n]
}
