package main

import (
	"strings"
	"testing"
)

// TestEmbeddedWhateverTheEnvironment is issue 38 item 4: an exported KAFKA_BOOTSTRAP_SERVERS
// turned the README's first command into a send to that cluster, and only
// `KAFKA_BOOTSTRAP_SERVERS= clickgen run` asked for the embedded broker. --embedded plays into
// it whatever the variable says (here a port nobody listens on); when the variable does pick
// the cluster, run's first line says so and names --embedded; --embedded with --brokers is a
// usage error.
func TestEmbeddedWhateverTheEnvironment(t *testing.T) {
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
	out, errs, code := clickgen(t, "run", "smoke", "--embedded")
	if code != 0 || !strings.Contains(errs, "clickgen: embedded broker on 127.0.0.1:") || strings.Contains(errs, "127.0.0.1:1 ") ||
		!strings.Contains(out, "expect hits: 2282 messages, profile smoke says 2282: ok") {
		t.Errorf("run smoke --embedded with the variable set: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}

	_, addr := kfakeCluster(t)
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", addr)
	_, errs, code = clickgen(t, "run", "smoke", "--send", "snapshots")
	first, _, _ := strings.Cut(errs, "\n")
	want := "clickgen: playing into Kafka at " + addr + " (env KAFKA_BOOTSTRAP_SERVERS; --embedded plays into an embedded broker instead); nothing is read back"
	if code != 0 || first != want {
		t.Errorf("run with the variable: exit %d, first line %q, want %q\n%s", code, first, want, errs)
	}
	_, errs, code = clickgen(t, "run", "smoke", "--send", "snapshots", "--brokers", addr)
	if first, _, _ := strings.Cut(errs, "\n"); code != 0 || first != "clickgen: playing into Kafka at "+addr+" (--brokers); nothing is read back" {
		t.Errorf("run --brokers: exit %d, first line %q", code, first)
	}
	if _, errs, code := clickgen(t, "run", "smoke", "--embedded", "--brokers", addr); code != 2 || !strings.Contains(errs, "both --embedded and --brokers given: choose one") {
		t.Errorf("--embedded --brokers: exit %d, stderr %q; want 2", code, errs)
	}
	if out, _, _ := clickgen(t, "run", "--help"); !strings.Contains(out, "--embedded") {
		t.Errorf("run --help does not list --embedded")
	}
}
