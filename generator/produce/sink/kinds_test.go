package sink

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kindExamples are, per kind of sink, settings that choose it (given a scratch directory and
// a fresh Kafka-compatible cluster) and how to read back what a sink of it took: a new kind
// needs its row here too, or TestSinkKinds fails.
var kindExamples = map[string]struct {
	settings func(dir string, c *kfake.Cluster) Settings
	// read returns the values topic t holds after the sink was flushed and closed (stdout:
	// what the sink's caller gave it as its stdout).
	read func(t *testing.T, s Settings, topic string, stdout []byte) []string
}{
	"file": {
		settings: func(dir string, _ *kfake.Cluster) Settings { return fileSettings(filepath.Join(dir, "out.jsonl")) },
		read: func(t *testing.T, s Settings, _ string, _ []byte) []string {
			data, err := os.ReadFile(s.File)
			if err != nil {
				t.Fatal(err)
			}
			return splitLines(data)
		},
	},
	"stdout": {
		settings: func(string, *kfake.Cluster) Settings { return fileSettings("-") },
		read:     func(_ *testing.T, _ Settings, _ string, stdout []byte) []string { return splitLines(stdout) },
	},
	"Kafka": {
		settings: func(_ string, c *kfake.Cluster) Settings {
			s := DefaultSettings()
			s.Brokers, s.Topic, s.CreateTopics = Brokers(c.ListenAddrs()), "t", true
			return s
		},
		read: func(t *testing.T, s Settings, topic string, _ []byte) []string {
			cl, err := kgo.NewClient(kgo.SeedBrokers(s.Brokers...), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // the records are there: a bound, not a wait
			defer cancel()
			var got []string
			for len(got) < 2 {
				fs := cl.PollFetches(ctx)
				if err := fs.Err(); err != nil {
					t.Fatalf("read %q of topic %s, then: %v", got, topic, err)
				}
				fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
			}
			return got
		},
	},
}

func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := slices.Index(b, '\n')
		if i < 0 {
			return append(out, string(b))
		}
		out, b = append(out, string(b[:i])), b[i+1:]
	}
	return out
}

// TestSinkKinds walks the table of sink kinds: names are unique, every setting a row names is
// a field of Settings and every field applies to some kind, the field that chooses a kind
// applies to it and is its Field, and each kind, chosen by its example's settings alone,
// passes Validate, opens and delivers what it was sent (with the topic created, for a kind
// with partitions; to the caller's stdout, for a kind that writes there).
func TestSinkKinds(t *testing.T) {
	fields := map[string]bool{}
	for f := range reflect.TypeFor[Settings]().Fields() {
		if !f.IsExported() {
			continue // what the settings keep for themselves (the TLS files LoadTLS read)
		}
		fields[f.Name] = false
	}
	names := map[string]bool{}
	for _, k := range Kinds() {
		if k.Name == "" || names[k.Name] {
			t.Errorf("kind %q: the name is empty or repeated", k.Name)
		}
		names[k.Name] = true
		for _, f := range k.settings {
			if _, ok := fields[f]; !ok {
				t.Errorf("kind %s: setting %q is no field of Settings", k.Name, f)
			}
			fields[f] = true
		}
		ex, ok := kindExamples[k.Name]
		if !ok {
			t.Errorf("kind %s has no example in kindExamples: add its test", k.Name)
			continue
		}
		t.Run(k.Name, func(t *testing.T) { testKind(t, k, ex.settings, ex.read) })
	}
	for f, used := range fields {
		if !used {
			t.Errorf("setting %s applies to no kind of sink", f)
		}
	}
}

func testKind(t *testing.T, k *Kind, settings func(string, *kfake.Cluster) Settings, read func(*testing.T, Settings, string, []byte) []string) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := settings(t.TempDir(), c)
	if got, err := s.Kind(); got != k || err != nil {
		t.Fatalf("the example's settings choose %v, %v; want %s", got, err, k.Name)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	// The setting that chooses the kind applies to it: without it, no kind is chosen.
	zero := DefaultSettings()
	zero.Topic = s.Topic
	if got, err := zero.Kind(); !errors.Is(err, ErrNoSink) || got != nil {
		t.Errorf("settings without the example's choice choose %v, %v; want ErrNoSink", got, err)
	}
	chooser := ""
	for f := range reflect.TypeFor[Settings]().Fields() {
		if !f.IsExported() {
			continue // what the settings keep for themselves (the TLS files LoadTLS read)
		}
		v := reflect.ValueOf(&zero).Elem().FieldByName(f.Name)
		v.Set(reflect.ValueOf(s).FieldByName(f.Name))
		if got, _ := zero.Kind(); got == k && chooser == "" {
			chooser = f.Name
		}
	}
	if !k.Applies(chooser) || chooser != k.Field {
		t.Errorf("the field that chooses %s, %q, does not apply to it or is not its Field %q", k.Name, chooser, k.Field)
	}

	ctx := context.Background()
	const topic = "hits"
	var stdout bytes.Buffer
	snk, err := s.Open(ctx, &stdout, map[string]int32{topic: 2}, nil)
	if err != nil {
		t.Fatalf("Open() = %v", err)
	}
	for _, v := range []string{`{"a":1}`, `{"b":2}`} {
		if err := snk.Send(ctx, Message{Topic: topic, Key: []byte("k"), Value: []byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := snk.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if st := snk.Stats().Topics[topic]; st.Acked != 2 {
		t.Errorf("%s: acked %d of 2", k.Name, st.Acked)
	}
	if err := snk.Close(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, topic, stdout.Bytes()); !slices.Equal(got, []string{`{"a":1}`, `{"b":2}`}) {
		t.Errorf("%s holds %q", k.Name, got)
	}
	if (stdout.Len() > 0) != k.Stdout {
		t.Errorf("%s wrote %d bytes to stdout; its Stdout is %v", k.Name, stdout.Len(), k.Stdout)
	}
	if k.Partitions {
		adm, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
		if err != nil {
			t.Fatal(err)
		}
		defer adm.Close()
		td, err := kadm.NewClient(adm).ListTopics(ctx, topic)
		if err != nil || len(td[topic].Partitions) != 2 {
			t.Errorf("%s: topic %s has %d partitions (%v), want the 2 asked for", k.Name, topic, len(td[topic].Partitions), err)
		}
	}
}

// TestSettingsKind: no kind chosen is ErrNoSink, two are ErrTwoSinks naming how each was
// chosen; the file kind takes no TLS or SASL, as its row says, and Validate refuses them
// with the kind's own words (Kind.Refuse), naming the kind they apply to.
func TestSettingsKind(t *testing.T) {
	s := DefaultSettings()
	if k, err := s.Kind(); k != nil || !errors.Is(err, ErrNoSink) {
		t.Errorf("no file, no brokers: %v, %v; want ErrNoSink", k, err)
	}
	s.File, s.Brokers = "x", Brokers{"k:9", "l:9"}
	if k, err := s.Kind(); k != nil || !errors.Is(err, ErrTwoSinks) || err.Error() != "file x and brokers k:9,l:9: "+ErrTwoSinks.Error() {
		t.Errorf("a file and brokers: %v, %v; want ErrTwoSinks naming both", k, err)
	}
	file := fileSettings("x")
	k, _ := file.Kind()
	for _, f := range []string{"TLS", "TLSCA", "TLSCert", "TLSKey", "SASLMechanism", "SASLUser", "SASLPassword", "CreateTopics", "Replication", "Compression", "Brokers"} {
		if k.Applies(f) {
			t.Errorf("setting %s applies to a file", f)
		}
	}
	if !k.Applies("Linger") { // how long a line waits in the buffer (issue 38)
		t.Errorf("setting Linger does not apply to a file")
	}
	file.TLS = true
	if err := file.Validate(); err == nil || err.Error() != "TLS applies to Kafka (brokers), not to a file (file)" {
		t.Errorf("TLS with a file: %v, want it refused as Kafka's", err)
	}
	out := fileSettings("-")
	out.CreateTopics = true
	if err := out.Validate(); err == nil || err.Error() != "CreateTopics applies to Kafka (brokers), not to stdout (file -)" {
		t.Errorf("CreateTopics with stdout: %v, want it refused as Kafka's", err)
	}
}
