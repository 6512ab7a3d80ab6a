package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestRefusedDayCountedOnce: brokers that refuse every batch with MESSAGE_TOO_LARGE (as a real
// topic with a small max.message.bytes does, issue 21). The run names the incomplete day
// once, and the count of undelivered messages it prints is the report's failed count; the
// final flush's count used to follow as a second error line with another figure (4983
// beside 10001 on a real broker).
func TestRefusedDayCountedOnce(t *testing.T) {
	c, addr := kfakeCluster(t)
	c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kreq.(*kmsg.ProduceRequest)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = kerr.MessageTooLarge.Code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	rep := filepath.Join(t.TempDir(), "report.json")
	_, errs, code := clickgen(t, "batch", "--day", "0", "--brokers", addr, "--topic", "hits", "--report", rep)
	if code != 1 || strings.Count(errs, "day 0 (2026-06-01) is incomplete") != 1 {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming day 0 once", code, errs)
	}
	counts := regexp.MustCompile(`(\d+) message\(s\) not delivered`).FindAllStringSubmatch(errs, -1)
	h := readReport(t, rep).Topics["hits"]
	if len(counts) != 1 || counts[0][1] != strconv.FormatInt(h.Failed, 10) || h.Failed == 0 {
		t.Errorf("stderr counts undelivered messages as %v, the report %d failed; want one count, the report's:\n%s", counts, h.Failed, errs)
	}
}
