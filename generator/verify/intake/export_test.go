package intake

// Exported for the external test package intake_test, whose tests import package generator
// (package intake's own tests cannot: generator's tests import intake, so an internal test
// importing generator would be an import cycle). chDB allows one engine data path per process,
// so both packages of this test binary must share one session.

// ClickgenBinary is clickgenBinary: the command, built once per run of the test binary.
var ClickgenBinary = clickgenBinary

// OpenEngine is openEngine: the test binary's one chDB session, where the chdb tier runs.
var OpenEngine = openEngine

// OrderedParseAgrees parses raw with parseOrdered and with parseDocument: fast says the first
// took it, same that its document is the second's, member for member.
func OrderedParseAgrees(raw []byte) (fast, same bool) {
	d, ok := parseOrdered(raw, nil, hitKeys)
	if !ok {
		return false, true
	}
	g, ok := parseDocument(raw)
	if !ok || g.root.kind != d.root.kind || len(g.members) != len(d.members) {
		return true, false
	}
	for i := range g.members {
		if g.members[i] != d.members[i] {
			return true, false
		}
	}
	return true, true
}
