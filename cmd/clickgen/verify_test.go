package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/internal/testenv"
)

// allGarbage is every garbage class, opt-in ones included, at a rate high enough for each
// to occur in a small world, with redelivery.
var allGarbage = []string{"--garbage", "0.02", "--garbage-mix",
	"not_an_object=1,keyset_mismatch=1,key_field_unparsed=1,accepted_bad=1,vanishing=1,field_invalid=1", "--redeliver", "0.01"}

// smallWorld keeps the Kafka round trips short: a third of the canonical population, and
// under the race detector raceScale.
var smallWorld = func() []string {
	if testenv.Race {
		return []string{"--scale", raceScale}
	}
	return []string{"--scale", "0.3"}
}()

func concatArgs(parts ...[]string) []string { return slices.Concat(parts...) }

// TestVerifyUsage: mistakes in calling verify exit 2 before anything is read; an unreachable
// broker exits 1 within seconds.
func TestVerifyUsage(t *testing.T) {
	for _, args := range [][]string{
		{"verify", "--day", "0"},                                                // no brokers
		{"verify", "--brokers", "127.0.0.1:1"},                                  // no day
		{"verify", "--brokers", "127.0.0.1:1", "--day", "0", "--file", "x"},     // sends nothing
		{"verify", "--brokers", "127.0.0.1:1", "--day", "0", "--topic", "hits"}, // --hits-topic instead
		{"verify", "--brokers", "127.0.0.1:1", "--day", "0", "--hits-topic", "t", "--orders-topic", "t"},
		{"verify", "--brokers", "127.0.0.1:1", "--day", "0", "--garbage-mix", "nope=1"},
		{"verify", "--brokers", "127.0.0.1:1", "--day", "0", "extra"},
	} {
		t.Setenv("KAFKA_BOOTSTRAP_SERVERS", "")
		if _, errs, code := clickgen(t, args...); code != 2 {
			t.Errorf("clickgen %q: exit %d, want 2 (%s)", args, code, errs)
		}
	}
	out, _, code := clickgen(t, "verify", "--help")
	if code != 0 || !strings.Contains(out, "murmur2") || !strings.Contains(out, "SHA-256") || !strings.Contains(out, "stg_rows") {
		t.Errorf("verify --help: exit %d\n%s", code, out)
	}
	_, errs, code := clickgen(t, "verify", "--brokers", "127.0.0.1:1", "--day", "0", "--connect-timeout", "1s")
	if code != 1 || !strings.Contains(errs, "127.0.0.1:1") || !strings.Contains(errs, "(--connect-timeout)") {
		t.Errorf("unreachable broker: exit %d, stderr %q; want exit 1 naming the broker and --connect-timeout", code, errs)
	}
}

// TestInjectUsage: an unknown class, a class of the other topic, a topic whose kind cannot be
// told, or a bad count exit 2 and list the valid classes; nothing is sent.
func TestInjectUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--topic", "hits", "--class", "nonsense"}, "key_field_unparsed"},
		{[]string{"--topic", "hits", "--class", "field_invalid"}, "vanishing"},
		{[]string{"--topic", "orders", "--class", "key_field_unparsed"}, "field_invalid"},
		{[]string{"--topic", "orders", "--class", "vanishing"}, "field_invalid"},
		{[]string{"--topic", "orders"}, "--class is required"},
		{[]string{"--topic", "clicks", "--class", "not_an_object"}, "--kind"},
		{[]string{"--topic", "clicks", "--kind", "users", "--class", "not_an_object"}, "hits or orders"},
		{[]string{"--topic", "hits", "--class", "not_an_object", "--count", "0"}, "--count"},
		{[]string{"--class", "not_an_object"}, "--topic"},
	} {
		args := concatArgs([]string{"inject", "--brokers", "127.0.0.1:1"}, tc.args)
		if _, errs, code := clickgen(t, args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("clickgen %q: exit %d, stderr %q; want 2 mentioning %q", args, code, errs, tc.want)
		}
	}
}
