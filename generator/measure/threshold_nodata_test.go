package measure

import (
	"strings"
	"testing"
	"time"
)

// TestFailedOverNothingIsNoData is issue 35's P14: `failed==0` held on a run that measured
// nothing (it sent nothing, or nothing after its warm-up). A threshold over nothing measured
// is crossed with "no data", whatever its figure: failed as much as a latency or the rate.
func TestFailedOverNothingIsNoData(t *testing.T) {
	for _, tc := range []struct {
		expr string
		run  Figures
		why  string
	}{
		{"failed==0", Figures{}, "no message was sent"},
		{"failed<=5", Figures{}, "no message was sent"},
		{"failed==0", Figures{Sent: 5, Acked: 5, Warmup: &Warmup{Duration: time.Second, Acked: 5}}, "no message was sent after the warm-up"},
		{"p99<1s", Figures{}, "no message was acknowledged"},
	} {
		th, err := ParseThreshold(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		v := th.Judge(tc.run)[0]
		line := v.String()
		if v.Held || v.Measured || !strings.Contains(line, "crossed: no data ("+tc.why) || v.Value() != "no data" {
			t.Errorf("%s on %+v: %q (value %q), want crossed with no data: %s", tc.expr, tc.run, line, v.Value(), tc.why)
		}
		ce := (&CrossedError{Verdicts: []Verdict{v}}).Error()
		if !strings.Contains(ce, "(no data: "+tc.why) {
			t.Errorf("%s: the error %q does not say no data", tc.expr, ce)
		}
	}
	th, _ := ParseThreshold("failed==0")
	if v := th.Judge(Figures{Sent: 3, Acked: 3})[0]; !v.Held || !v.Measured {
		t.Errorf("failed==0 on 3 sent, 3 acknowledged: %s, want held", v)
	}
}
