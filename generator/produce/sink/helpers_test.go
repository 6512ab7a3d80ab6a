package sink_test

import (
	"sync/atomic"

	"github.com/clickgen/clickgen/internal/tier/kafkatest"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var (
	newCluster   = kafkatest.NewCluster
	newKafka     = kafkatest.NewKafka
	testMessages = kafkatest.TestMessages
	sendAll      = kafkatest.SendAll
	consumeAll   = kafkatest.ConsumeAll
)

// failProduce makes the cluster answer every produce request after the
// first `pass` ones with code for every partition, without storing
// anything. It returns the number of produce requests seen.
func failProduce(c *kfake.Cluster, pass int64, code int16) *atomic.Int64 {
	var seen atomic.Int64
	c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if seen.Add(1) <= pass {
			return nil, nil, false // handled normally: stored and acked
		}
		req := kreq.(*kmsg.ProduceRequest)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	return &seen
}
