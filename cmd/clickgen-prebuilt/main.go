// Command clickgen-prebuilt is the "clickgen sending pre-built bytes" producer of the Kafka
// benchmark, .ci/kafka/bench, which builds it:
//
//	clickgen-prebuilt -write FILE        write the fill world's hits (what `clickgen batch --day 0
//	                                     --days 8` sends, in its order) as key<TAB>value lines,
//	                                     the form `kcat -P -K '\t' -l FILE` reads, and
//	                                     FILE.days with each day's message count
//	clickgen-prebuilt -brokers HOSTS -topic T FILE
//	                                     read FILE (and FILE.days) into memory, then send every
//	                                     line through clickgen's Kafka sink with its defaults
//	                                     (franz-go, idempotent, acks=all, lz4, linger 10ms,
//	                                     batches up to 1 000 012 bytes), flushing at the end of
//	                                     every day as batch does, and print the send phase's
//	                                     wall and CPU seconds
//
// It is a benchmark tool, not part of the command: the only difference from `clickgen batch`
// is that the bytes exist before the clock starts. It lives under cmd/ so that `go vet ./...`
// and `go test ./...` see it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

func main() {
	write := flag.String("write", "", "write the fill world's hits to this file as key<TAB>value lines and exit")
	brokers := flag.String("brokers", "", "Kafka bootstrap brokers, comma-separated")
	topic := flag.String("topic", "hits", "topic to send to")
	flag.Parse()
	var err error
	if *write != "" {
		err = writeFill(*write)
	} else if flag.NArg() != 1 || *brokers == "" {
		err = fmt.Errorf("usage: clickgen-prebuilt -write FILE | clickgen-prebuilt -brokers HOSTS [-topic T] FILE")
	} else {
		err = send(os.Stdout, *brokers, *topic, flag.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clickgen-prebuilt:", err)
		os.Exit(1)
	}
}

// writeFill writes the fill world's hits, days 0 to 7 of the canonical world, to path.
func writeFill(path string) error {
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		return err
	}
	return writeHits(path, w, 8)
}

// writeHits writes the clean hits of days [0, n) of w to path as key<TAB>value lines, and
// path.days with each day's count.
func writeHits(path string, w *world.World, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var days []int
	err = w.Play(context.Background(), 0, n, world.PlayOptions{}, func(b *world.Batch) error {
		if b.From == 0 {
			days = append(days, 0)
		}
		days[len(days)-1] += len(b.Msgs)
		for i := range b.Msgs {
			bw.Write(b.Key(i))
			bw.WriteByte('\t')
			bw.Write(b.Value(i))
			bw.WriteByte('\n')
		}
		return nil
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	var counts []byte
	for _, n := range days {
		counts = fmt.Appendf(counts, "%d\n", n)
	}
	return os.WriteFile(path+".days", counts, 0o644)
}

// send sends the lines of path through clickgen's Kafka sink, flushing after each day's count
// of path.days, and prints the send phase's rate and CPU to out.
func send(out io.Writer, brokers, topic, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var msgs []sink.Message
	for line := range bytes.Lines(data) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		k, v, ok := bytes.Cut(line, []byte("\t"))
		if !ok {
			return fmt.Errorf("%s: a line without a tab", path)
		}
		msgs = append(msgs, sink.Message{Topic: topic, Key: k, Value: v})
	}
	var days []int
	counts, err := os.ReadFile(path + ".days")
	if err != nil {
		return err
	}
	for f := range bytes.FieldsSeq(counts) {
		n, err := strconv.Atoi(string(f))
		if err != nil {
			return fmt.Errorf("%s.days: %w", path, err)
		}
		days = append(days, n)
	}
	k, err := sink.NewKafka(sink.SeedBrokers(brokers))
	if err != nil {
		return err
	}
	defer k.Close()
	ctx := context.Background()
	if err := k.CheckConnect(ctx); err != nil {
		return err
	}
	total := len(msgs)
	u0, s0 := cpu()
	start := time.Now()
	for _, n := range days {
		if n > len(msgs) {
			return fmt.Errorf("%s.days counts more messages than %s holds", path, path)
		}
		for _, m := range msgs[:n] {
			if err := k.Send(ctx, m); err != nil {
				return err
			}
		}
		msgs = msgs[n:]
		if err := k.Flush(ctx); err != nil {
			return err
		}
	}
	if len(msgs) != 0 {
		return fmt.Errorf("%s.days counts %d messages fewer than %s holds", path, len(msgs), path)
	}
	wall := time.Since(start).Seconds()
	u1, s1 := cpu()
	st := k.Stats().Topics[topic]
	fmt.Fprintf(out, "prebuilt: %d acked of %d in %.3f s: %.0f msg/s, %.1f MB/s; send phase CPU user %.2f s sys %.2f s\n",
		st.Acked, total, wall, float64(st.Acked)/wall, float64(st.Bytes)/wall/1e6, u1-u0, s1-s0)
	return nil
}

// cpu is the process's user and system CPU seconds so far.
func cpu() (user, sys float64) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()).Seconds(), time.Duration(ru.Stime.Nano()).Seconds()
}
