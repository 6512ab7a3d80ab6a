package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clickgen/clickgen/generator/produce/sink"
)

// prepare readies the sink flags for opening: the TLS files are read once, here, before any
// client (the sink's, a follower's) is built from the settings, so a FIFO among them waits
// within ctx (an unreadable one is a usage error); and the options it returns make
// --create-topics say each topic it created, with its partitions and replication factor, and,
// past a second, what it waits for before sending and how long at most, as brokers that do
// not answer are told (connectNotice; issue 31).
func (sf *sinkFlags) prepare(ctx context.Context, sio *stdio) ([]sink.Opt, error) {
	sf.warnClearText(sio)
	if err := sf.LoadTLS(ctx); err != nil {
		if ce := (*sink.ConfigError)(nil); errors.As(err, &ce) {
			return nil, usage(sf.verb, ce.Err) // wrapped, so that an I/O error stays a failure
		}
		return nil, err // interrupted
	}
	return []sink.Opt{connectNotice(sio), sink.OnCreate(func(c sink.Created) {
		parts := "partitions"
		if c.Partitions == 1 {
			parts = "partition"
		}
		fmt.Fprintf(sio.err, "clickgen: created topic %s (%d %s, replication factor %d)\n", c.Topic, c.Partitions, parts, c.Replication)
	}, func(w sink.LeaderWait) {
		fmt.Fprintf(sio.err, "clickgen: waiting until every broker knows a leader for each partition of %s (%d not yet), at most %v (--connect-timeout; Ctrl-C stops)\n",
			strings.Join(w.Topics, ", "), w.Pending, w.Bound)
	})}, nil
}

// warnClearText says, once, before the first connection, that the SASL password is about to
// go in clear text (PLAIN without TLS): nothing warned (issue 35).
func (sf *sinkFlags) warnClearText(sio *stdio) {
	if sf.ClearTextPassword() {
		fmt.Fprintf(sio.err, "clickgen: warning: SASL PLAIN without TLS sends the password of env %s to %s in clear text: add --tls, or use SCRAM-SHA-256 or SCRAM-SHA-512\n",
			sinkPasswordEnv, sf.Brokers)
	}
}

// connectNotice is the sink option that says, once brokers have kept the connection check
// waiting for a second, what it waits for and how long at most: an unresponsive broker looked
// like a hang for the whole --connect-timeout (issue 31).
func connectNotice(sio *stdio) sink.Opt {
	return sink.OnConnectWait(func(w sink.ConnectWait) {
		fmt.Fprintf(sio.err, "clickgen: waiting for Kafka at %s to answer, at most %v (--connect-timeout; Ctrl-C stops)\n", w.Brokers, w.Bound)
	})
}
