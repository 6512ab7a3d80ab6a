package session

import (
	"io"
	"log/slog"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/console"
	"github.com/clickgen/clickgen/generator/measure/storefollow"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/profiles"
)

// Config is one session: what to play, where, who listens and how it speaks. The fields'
// names are the keys by which its refusals and lines name them (field.Names): Workers,
// Interval, and those of [Outputs] and sink.Settings.
type Config struct {
	// Profile is what to play: a profile with the caller's overrides applied and its days
	// checked (profiles.Profile.Apply, profiles.CheckDays); [Run] fills in its defaults.
	Profile profiles.Profile
	// Segment is the share of the run to play (the zero Segment: all of it).
	Segment world.Segment
	// Workers are the render workers; 0 chooses them for the sink (play.Workers).
	Workers int
	// Memory is the most memory the run may need (profiles.MemoryLimit, measured by the
	// caller); SoftMemoryLimit sets the process's soft memory limit to what the run needs.
	Memory          profiles.MemoryLimit
	SoftMemoryLimit bool
	// Files are the files the caller's run reads and writes, by its names, checked
	// (fileio.Check) once the settings are, before anything is read.
	Files []fileio.Use
	// Sink chooses where the messages go.
	Sink sink.Settings
	// BrokersFrom says where Sink.Brokers came from, for [Run]'s first line ("--brokers", or
	// a variable and how to play into the embedded broker instead); "" says "brokers".
	BrokersFrom string
	// Outputs are the run's listeners beside the console.
	Outputs Outputs
	// Interval is how often a paced run prints a progress line (at least [MinInterval]; 0:
	// [DefaultInterval]). ReplayEvery, if set, is a replayed run's own period.
	Interval, ReplayEvery time.Duration
	// Stdout takes the data (a file sink's "-", a run's read-back table), Stderr the lines.
	Stdout, Stderr io.Writer
	// Names names the fields of the session's values in its lines and errors; nil keeps the
	// library's words.
	Names field.Names
	// KafkaLog, if set, is where the Kafka client logs (at warning and above).
	KafkaLog *slog.Logger
	// LimitName names how the message limit was set, for the line that says the run stopped
	// there ("--limit 25").
	LimitName string
	// Command and Settings say, in the report file, who wrote it (fileio.ReportMeta: the
	// caller's command and its settings as text, never a secret).
	Command  string
	Settings map[string]string

	rep *fileio.Report // the report file's life, once the config was checked (armReport)
}

// armReport starts the report file's life once the config was checked: from then on the
// report is written at the entry point's very end, whatever the end (fileio.Report: ok false
// and the error when it failed; a refusal, which touched nothing, writes none).
func (c *Config) armReport() {
	c.rep = &fileio.Report{Path: c.Outputs.Report, Command: c.Command, Settings: c.Settings}
	c.rep.Arm()
}

// Outputs are what listens to a run beside the console: its report file, Prometheus,
// following consumer groups and a table, and the verdict on its figures.
type Outputs struct {
	// Report is the file the run's report is written to at its end, whatever the end, once
	// the files were checked; "" writes none.
	Report string
	// MetricsAddr serves Prometheus metrics on HOST:PORT during the run ("" serves none), and
	// after it for up to MetricsLinger, until one scrape has read the final values.
	MetricsAddr   string
	MetricsLinger time.Duration
	// Follow follows consumer groups' committed offsets: the run's freshness; its poll period
	// and timeout are the store follower's too.
	Follow Follow
	// Store follows a table of a ClickHouse store: the time until queryable.
	Store StoreFollow
	// Thresholds are judged on the final figures; Warmup measures the run's start apart.
	Thresholds measure.Thresholds
	Warmup     time.Duration
}

// Follow is following consumer groups (generator/measure/follow): the groups (none follows
// nothing), how often their committed offsets are polled and how long the end waits for them.
type Follow struct {
	Groups  []string
	Every   time.Duration
	Timeout time.Duration
}

// DefaultFollow is how groups are followed unless told otherwise: polled every 250 ms, waited
// for at most 2 minutes.
func DefaultFollow() Follow { return Follow{Every: 250 * time.Millisecond, Timeout: 2 * time.Minute} }

// StoreFollow is following a table of a ClickHouse store (generator/measure/storefollow):
// sent messages are sampled, at most Sample a second (0: storefollow.DefaultSample), their
// keys polled in Table ("": [DefaultStoreTable]) of the server at URL ("" follows none) as
// User (nil: the URL's, else the server's default) with Password, every Follow.Every, and at
// the end waited for within Follow.Timeout. An https server is verified with the sink's
// TLSCA; the connection is bounded by its ConnectTimeout.
type StoreFollow struct {
	URL      string
	Table    string
	Sample   pace.Rate
	User     *string
	Password string
}

// DefaultStoreTable is the table a store follower reads unless told otherwise: the stand's
// events, through their Distributed face; DefaultStoreSample the most messages it samples a
// second.
const (
	DefaultStoreTable  = "ods.event_dist"
	DefaultStoreSample = pace.Rate(storefollow.DefaultSample)
)

// DefaultInterval is a paced run's progress period unless told otherwise; MinInterval the
// shortest it may be (--interval 1ns printed 135 655 lines in 2 s).
const (
	DefaultInterval = 5 * time.Second
	MinInterval     = console.MinProgressEvery
)
