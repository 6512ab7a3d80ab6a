// Package verify is the one entry point of verification: what a storage holds against what
// a run of the world planned, the storage being its source: Kafka's topics
// (generator/verify/topics) or a ClickHouse store a pipeline filled from them
// (generator/verify/store), both judged by the stand's intake (generator/verify/intake). [Run]
// takes the run (a profile's world, days and garbage, and a segment of it), builds its world
// and reads the source, prints the result's table and writes its report.
//
// It takes values, never flags, and names them, in its lines and errors, by the caller's
// names ([Config.Names], field.Names). What it refuses before anything is read comes as a
// *field.Refusal (a command line's usage error); a store or topics that cannot be read whole
// is an error too: verify never says OK on what it did not read whole. It imports produce
// (the world, the profiles, the sink's settings for Kafka's connection), never measure.
package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/generator/verify/topics"
	"github.com/clickgen/clickgen/profiles"
)

// Config is one verification: the run to judge, the source to read and how to speak. The
// fields' names, and those of [Kafka] and [Store], are the keys its refusals and lines name
// them by (field.Names).
type Config struct {
	// Profile is the run whose world, days and garbage the source must hold (the caller's
	// overrides applied, its days checked); Segment the share of it.
	Profile profiles.Profile
	Segment world.Segment
	// Workers compute the expectation; 0 means all cores.
	Workers int
	// Memory is the most memory the expectation may need; SoftMemoryLimit sets the process's
	// soft memory limit to what it needs.
	Memory          profiles.MemoryLimit
	SoftMemoryLimit bool
	// Files are the files the caller's verification reads and writes, by its names, checked
	// (fileio.Check) before anything is read.
	Files []fileio.Use
	// Report is the file the full result is written to as JSON, whatever the end, once the
	// files were checked ("" writes none); Command and Settings say in it who wrote it
	// (fileio.ReportMeta: the caller's command and its settings as text, never a secret).
	Report   string
	Command  string
	Settings map[string]string
	// Kafka or Store is the source: exactly one is set.
	Kafka *Kafka
	Store *Store
	// Stdout takes the result's table, Stderr the progress lines.
	Stdout, Stderr io.Writer
	// Names names the fields in lines and errors; nil keeps the library's words.
	Names field.Names

	rep *fileio.Report // the report file's life, once the config was checked
}

// Kafka is reading the topics a run was sent to: the two topics, the partition counts their
// keys were placed with, how long reading may take (topics.Verify's), and the brokers with
// their connection (a sink's settings: Brokers, the connect timeout, TLS, SASL).
type Kafka struct {
	HitsTopic, OrdersTopic         string
	HitPartitions, OrderPartitions int32
	Timeout                        time.Duration
	// Strict says the topics must hold the run alone (topics.Verify.Strict).
	Strict bool
	Sink   sink.Settings
}

// DefaultKafka is how the stand's topics are read unless told otherwise: hits (2 partitions)
// and orders (1), within 5 minutes.
func DefaultKafka() Kafka {
	return Kafka{HitsTopic: topics.TopicHits, OrdersTopic: topics.TopicOrders, HitPartitions: 2, OrderPartitions: 1, Timeout: 5 * time.Minute,
		Sink: sink.DefaultSettings()}
}

// Store is reading the tables a pipeline filled, over ClickHouse's HTTP interface at URL as
// User (nil: the URL's, else the server's default) with Password, verifying an https server
// with the CA certificate file TLSCA, connecting within ConnectTimeout and waiting at most
// Timeout for the server while it is silent (the server-side limit of every query too: a
// query given up on is cancelled on the server); Tables, Columns, ExactlyOnce and Wait are
// store.Options'.
type Store struct {
	URL            string
	User           *string
	Password       string
	TLSCA          string
	ConnectTimeout time.Duration
	Timeout        time.Duration
	Tables         store.Tables
	Columns        store.Columns
	ExactlyOnce    bool
	Wait           time.Duration
}

// DefaultStore is how the stand's store is read unless told otherwise: its tables, a 10 s
// connect timeout and a 2 min wait for a silent server.
func DefaultStore() Store {
	return Store{Tables: store.StandTables(), ConnectTimeout: sink.DefaultSettings().ConnectTimeout, Timeout: clickhouse.DefaultFirstByteTimeout}
}

// Run reads the config's source and reconciles it with what the run planned: the table on
// Stdout, progress on Stderr, the result as JSON in Report; an error when it differs or
// cannot be read whole. Once the config was checked the report is written whatever the end
// (ok false and the error when it failed; a refusal writes none).
func Run(ctx context.Context, c Config) (err error) {
	r := world.Range{From: c.Profile.Play.Day, Days: c.Profile.Play.Days, Garbage: c.Profile.Garbage, Segment: c.Segment}
	client, err := c.check(ctx)
	if err != nil {
		return err
	}
	c.rep = &fileio.Report{Path: c.Report, Command: c.Command, Settings: c.Settings}
	c.rep.Arm()
	defer func() { err = c.rep.Finish(err, c.Names) }()
	workers := c.Workers
	if workers == 0 {
		workers = play.Workers(false)
	}
	w, err := c.Profile.NewWorld(ctx, c.Memory, workers)
	if err != nil {
		return field.Refuse(err)
	}
	if c.Store != nil {
		// The store's check makes no day past the range's (the inventory a wait needs
		// neither): the cohorts keep no later activity, 157 MB of a ×100 day's.
		w.KeepUntil(r.From + r.Days - 1)
		most := int64(storeMemory)
		if store.PlansFromSegments(w, r) {
			most = storeSegmentMemory(w.Scale())
		}
		c.setMemoryLimit(w, workers, most)
		return c.runStore(ctx, client, w, r)
	}
	most := int64(kafkaMemory)
	if k := c.Kafka; topics.PlanWindows(w, r, topics.Options{HitPartitions: k.HitPartitions, OrderPartitions: k.OrderPartitions}) > 1 {
		most = kafkaWindowMemory(w.Scale())
	}
	c.setMemoryLimit(w, workers, most)
	return c.runKafka(ctx, w, r)
}

// check refuses, before anything is read, what the config cannot verify: the source's
// settings (a store's client is built here), the workers, the report and the files.
func (c *Config) check(ctx context.Context) (*clickhouse.Client, error) {
	var client *clickhouse.Client
	if (c.Kafka == nil) == (c.Store == nil) {
		return nil, field.Refuse(errors.New("verify: want one source, Kafka or a store"))
	}
	if k := c.Kafka; k != nil {
		v := topics.Verify{HitsTopic: k.HitsTopic, OrdersTopic: k.OrdersTopic, Timeout: k.Timeout,
			Options: topics.Options{HitPartitions: k.HitPartitions, OrderPartitions: k.OrderPartitions}}
		if err := v.Validate(); err != nil {
			return nil, field.Refuse(err)
		}
	}
	if err := world.CheckWorkers(c.Workers); err != nil {
		return nil, field.Refuse(err)
	}
	if s := c.Store; s != nil {
		var err error
		if client, err = s.client(ctx, c.Report, func(format string, args ...any) { c.logf("verify: "+format, args...) }); err != nil {
			return nil, field.Refuse(err)
		}
	} else {
		if err := c.Kafka.Sink.Validate(); err != nil {
			return nil, field.Refuse(err)
		}
		if err := checkReport(c.Report); err != nil {
			return nil, field.Refuse(err)
		}
	}
	return client, field.Refuse(fileio.Check(c.Files...))
}

// checkReport refuses a report file that cannot be written.
func checkReport(path string) error {
	if path == "" {
		return nil
	}
	if err := fileio.CheckReport(path); err != nil {
		return &field.Error{Field: "Report", Words: "report", Value: path, Err: err}
	}
	return nil
}

// logf prints a line of the verification on stderr, "clickgen: " first.
func (c *Config) logf(format string, args ...any) {
	fmt.Fprintf(c.Stderr, "clickgen: "+format+"\n", args...)
}

// name is field key as the config's names name it, or words.
func (c *Config) name(key, words string) string { return field.Name(c.Names, key, words) }

// publish keeps res, with its summary, as the report's document, then writes its table and
// its summary: a table that cannot be written (stdout closed: verify | head -1) fails the
// verification, and the report still says the result and that.
func (c *Config) publish(res result) error {
	s := res.SummaryCounts()
	c.rep.Keep(withSummary{res: res, summary: s})
	if err := res.WriteTable(c.Stdout); err != nil {
		return err
	}
	return writeSummary(c.Stdout, s)
}

// setMemoryLimit sets, when asked to, the soft memory limit of reading world w's range on
// workers, at most most (0: no cap).
func (c *Config) setMemoryLimit(w *world.World, workers int, most int64) {
	if !c.SoftMemoryLimit {
		return
	}
	f := world.Footprint{Scale: c.Profile.World.Scale, Garbage: c.Profile.Garbage, Workers: workers, Products: len(w.Catalog().Products)}
	limit := f.SoftLimit()
	if most > 0 {
		limit = min(limit, most)
	}
	debug.SetMemoryLimit(limit)
}

// afterASecond calls f a second from now, unless the returned stop is called first; stop
// returns once a call under way has returned, so that f's line comes before what follows
// the wait it announces.
func afterASecond(f func()) (stop func()) {
	var told sync.WaitGroup
	told.Add(1)
	t := time.AfterFunc(time.Second, func() {
		defer told.Done()
		f()
	})
	return func() {
		if t.Stop() {
			told.Done()
		}
		told.Wait()
	}
}

// interrupted says the verification was interrupted (play.Interrupted) with what it did.
func (c *Config) interrupted(err error, format string, args ...any) error {
	return play.Interrupted(err, c.Names, format, args...)
}

// plural is n what, "1 difference", "2 differences".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
