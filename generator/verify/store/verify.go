package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/schema"
)

// readAttempts is how often a read that found the table changing is made before the table
// is reported as unreadable.
const readAttempts = 3

func dateOfDay(d int) schema.Date { return world.DayDate(d) }
func dayDate(d int) string        { return world.DayDate(d).String() }

// Verify reads the store through src and reconciles it with what the run r of w leaves
// there: the inventory of `batch --day From --days Days` and `snapshot --day From --days
// Days` with r's garbage and segment. It probes every named table first (see [ConsumesError]),
// then walks the run's planned units once (the units the sender sends and the inventory
// counts), judging the events table date by date as each day's hits are planned and rendered,
// so memory holds one date's WatchIDs and row digests, not the run's; raw and error rows are
// matched by the [SipHash64] of their bytes (8 bytes per clean event's raw row, 16 per other
// planned row), orders by order_id and snapshot_date with their planned rows.
//
// A table that cannot be read (it does not exist, lacks a column, kept changing while read)
// is a difference of that table and the others are still read. A named table whose read
// would consume ends Verify with a [ConsumesError] before anything is read. Anything else that
// fails a read (the store does not answer in time, refuses the credentials, the answer breaks
// off, ctx ends) ends Verify with that error and no result: it never judges a store it could
// not read whole.
func Verify(ctx context.Context, w *world.World, r Range, src Source, opt Options) (*Result, error) {
	if err := errors.Join(r.Validate(), opt.Validate()); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	desc, err := src.Describe(ctx)
	if err != nil {
		return nil, err
	}
	opt.Logf("verify: %s", chtype.Escape([]byte(desc), maxErrorText))
	prog := newProgress(opt.Logf, opt.ProgressEvery)
	defer prog.stop()
	// The description carries the server's own version string: escaped like any of its text.
	desc = chtype.Escape([]byte(desc), maxErrorText)
	v := &verifier{w: w, r: r, src: src, opt: opt, prog: prog, res: &Result{Store: desc, ExactlyOnce: opt.ExactlyOnce, Tables: opt.Tables, Columns: opt.Columns}}
	// Every named table is probed before any is read: one whose read would consume is
	// refused before a single SELECT on any table, one that does not exist or lacks what is
	// read is a difference, and neither is waited for.
	if err := v.probe(ctx); err != nil {
		return nil, err
	}
	v.sayUnreadable()
	if opt.Wait <= 0 {
		return v.run(ctx)
	}
	start := time.Now()
	inv, err := w.Inventory(ctx, r, opt.Workers)
	if err != nil {
		return nil, err
	}
	opt.Logf("verify: the inventory of run %s computed in %v", runName(r), time.Since(start).Round(time.Millisecond))
	wopt := opt
	wopt.Tables = v.readable()
	deadline := time.Now().Add(opt.Wait)
	for {
		targets, err := waitFor(ctx, src, r, inv, wopt)
		if err != nil {
			return nil, err
		}
		res, err := v.run(ctx)
		if err != nil || res.OK {
			return res, err
		}
		// The tables are read one after another, each in one query: a store still filling
		// while they are read (its counts still for Quiet, then a late block: 18.16's Kafka
		// reader on a loaded machine flushed the last 12 498 hits after more than 30 s) holds
		// rows one table's read missed and another's found. Such a verdict says how the store
		// looked while it moved, not how it ended: when a table that was short has grown since,
		// it is judged again once it is still, within the wait. An OK is not: every table held
		// exactly the run when it was read.
		m := moved(ctx, src, targets)
		if m == "" {
			return res, nil
		}
		left := time.Until(deadline).Round(time.Second)
		if left <= 0 {
			opt.Logf("verify: the store changed while it was judged (%s); the wait is over, so that verdict stands", m)
			return res, nil
		}
		opt.Logf("verify: the store changed while it was judged (%s); judging it again once it is still", m)
		wopt.Wait = left
		v = v.again()
	}
}

// again is a fresh verifier for the same run and tables, the probe's findings kept.
func (v *verifier) again() *verifier {
	res := v.res
	return &verifier{w: v.w, r: v.r, src: v.src, opt: v.opt, prog: v.prog, layouts: v.layouts,
		res: &Result{Store: res.Store, ExactlyOnce: res.ExactlyOnce, Tables: res.Tables, Columns: res.Columns}}
}

// sayUnreadable names, at once, each named table the probe found unreadable (it does not
// exist, or lacks a column read): it is judged as a difference and never waited for, and the
// setting that skips it is said as the caller names it (issue 38: verify waited 30 s on a
// default view a server did not have, and nothing said how to skip it).
func (v *verifier) sayUnreadable() {
	for _, role := range []string{RoleEvents, RoleErrors, RoleRaw, RoleOrders, RoleOrderErrors, RoleMarts} {
		if l := v.layouts[role]; l != nil && !l.ok() {
			key := "tables." + strings.ReplaceAll(role, " ", "_")
			v.opt.Logf("verify: %s: %s; not waited for (%s '' skips it)", role, l.err, field.Name(v.opt.Names, key, key))
		}
	}
}

// readable is the named tables that the probe found readable; the others are blank.
func (v *verifier) readable() Tables {
	t := v.opt.Tables
	for role, name := range map[string]*string{RoleEvents: &t.Events, RoleErrors: &t.Errors, RoleRaw: &t.Raw,
		RoleOrders: &t.Orders, RoleOrderErrors: &t.OrderErrors, RoleMarts: &t.Marts} {
		if *name != "" && !v.layouts[role].ok() {
			*name = ""
		}
	}
	return t
}

// verifier is one run of Verify.
type verifier struct {
	w    *world.World
	r    Range
	src  Source
	opt  Options
	prog *progress
	res  *Result

	layouts     map[string]*layout // what the probe found of each named table, by role
	events      *EventsResult
	eventDiffs  lister[EventDiff]
	eventCols   columnCounter
	eventsDead  bool         // the events table failed: no more dates are read
	eventShards shardCounter // the events' rows per shard, of every date read
	planned     []plannedEvent
	scratch     []*planScratch // per worker, while planning
	nextRead    *eventRead     // the read of the next date, started while this one is judged
	raw, errs   *digestPlan
	orders      *orderPlan
	orderErrs   *digestPlan
	dig         digester
	sums        []uint64
	closed      map[int]*world.OrderClasses // the final classes of the closed days

	// The reads of the raw, error, orders and order error tables, started before the run is
	// planned (see early); nil for a table not read.
	rawEarly, errsEarly, ordersEarly, orderErrsEarly *early
}

// run verifies; an early read that failed in a way that ends verification ends it with its
// own error, not the cancellation it caused.
func (v *verifier) run(parent context.Context) (*Result, error) {
	ctx, abort := context.WithCancelCause(parent)
	var started []*early
	defer func() {
		abort(context.Canceled)
		for _, e := range started {
			<-e.done
		}
		if r := v.nextRead; r != nil {
			<-r.done
		}
	}()
	res, err := v.check(ctx, abort, &started)
	if err != nil && parent.Err() == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return res, err
}

// startEarly starts the reads of the tables read whole, each into its early.
func (v *verifier) startEarly(ctx context.Context, abort context.CancelCauseFunc, started *[]*early) {
	t := v.opt.Tables
	b := &budget{left: earlyBudget}
	start := func(table string, read func(context.Context, rowSink) error) *early {
		e := startEarly(ctx, table, b, abort, read)
		*started = append(*started, e)
		return e
	}
	if v.raw != nil && v.layouts[RoleRaw].ok() {
		v.rawEarly = start(t.Raw, v.digestsRead(t.Raw, "EventDate", ""))
	}
	if v.errs != nil && v.layouts[RoleErrors].ok() {
		v.errsEarly = start(t.Errors, v.digestsRead(t.Errors, "EventDate", "error_class"))
	}
	if v.orders != nil && v.layouts[RoleOrders].ok() && len(world.SnapshotDays(v.r.From, v.r.Days)) > 0 {
		v.ordersEarly = start(t.Orders, v.ordersRead(t.Orders))
	}
	if v.orderErrs != nil && v.layouts[RoleOrderErrors].ok() {
		v.orderErrsEarly = start(t.OrderErrors, v.digestsRead(t.OrderErrors, "snapshot_date", "error_class"))
	}
}

// digestsRead reads a raw or error table whole: (hash, hint, class) rows.
func (v *verifier) digestsRead(table, hintKey, classColumn string) func(context.Context, rowSink) error {
	return func(ctx context.Context, row rowSink) error {
		return v.src.Digests(ctx, table, hintKey, classColumn, row)
	}
}

// ordersRead reads the orders table whole: each row's judged values (split again by the
// judging).
func (v *verifier) ordersRead(table string) func(context.Context, rowSink) error {
	cols := v.layouts[RoleOrders].cols
	return func(ctx context.Context, row rowSink) error {
		return v.src.Orders(ctx, table, cols, func(b []byte, _ []int, shard int) error { row(0, b, nil, shard); return nil })
	}
}

// readWhole makes one attempt to read a table whole into sink: from e, its read started
// early, when there is one, else now. again says that e's answer broke off while it waited
// for the plan, and the table is to be read afresh.
func (v *verifier) readWhole(ctx context.Context, e *early, sink rowSink, read func(context.Context, rowSink) error) (again bool, err error) {
	if e == nil {
		return false, read(ctx, sink)
	}
	err = e.finish(sink)
	if e.brokeWaiting(ctx) {
		v.opt.Logf("verify: %s: the answer of the read started before the run was planned broke off while it waited (%v); reading it again", e.table, err)
		return true, err
	}
	return false, err
}

func (v *verifier) check(ctx context.Context, abort context.CancelCauseFunc, started *[]*early) (*Result, error) {
	t, res := v.opt.Tables, v.res
	v.dig = digester{workers: v.opt.Workers}
	if t.Events != "" {
		v.events = &EventsResult{TableHead: TableHead{Table: t.Events}}
		v.layouts[RoleEvents].head(&v.events.TableHead)
		v.eventDiffs.max = v.opt.MaxListed
		if !v.layouts[RoleEvents].ok() {
			v.eventsDead = true
			v.opt.Logf("verify: %s", v.events.Error)
		}
	}
	if t.Raw != "" {
		v.raw = newDigestPlan(nil)
	}
	if t.Errors != "" {
		v.errs = newDigestPlan(intake.HitClasses[:])
	}
	if t.Orders != "" {
		v.orders = &orderPlan{latest: map[string]schema.Date{}, carried: map[orderVersion]int32{}, l: v.layouts[RoleOrders]}
	}
	if t.OrderErrors != "" {
		v.orderErrs = newDigestPlan(intake.OrderClasses[:])
	}
	v.closed = map[int]*world.OrderClasses{}
	v.startEarly(ctx, abort, started)
	if err := v.walk(ctx); err != nil {
		return nil, err
	}
	if memoryHook != nil {
		memoryHook("walked")
	}
	res.Seed, res.GeneratorVersion, res.Scale = v.w.Seed(), world.Version, v.w.Scale()
	res.From, res.Days, res.Garbage = v.r.From, v.r.Days, v.r.Garbage
	if !v.r.Segment.Whole() {
		res.Segment = v.r.Segment.String()
	}
	if v.events != nil {
		e := v.events
		e.Diffs, e.Differences, e.Truncated = v.eventDiffs.list, v.eventDiffs.count, v.eventDiffs.truncated()
		e.Columns = v.eventCols.list()
		if cl := v.layouts[RoleEvents].cluster(); cl != nil {
			e.Shards = v.eventShards.list(cl, true)
		}
		e.finish(v.opt.ExactlyOnce)
		res.Events = e
	}
	var err error
	if v.raw != nil {
		if res.Raw, err = v.checkDigests(ctx, RoleRaw, t.Raw, "EventDate", "", v.raw, v.rawEarly, v.hitDates()); err != nil {
			return nil, err
		}
	}
	if v.errs != nil {
		if res.Errors, err = v.checkDigests(ctx, RoleErrors, t.Errors, "EventDate", "error_class", v.errs, v.errsEarly, v.hitDates()); err != nil {
			return nil, err
		}
	}
	if v.orders != nil {
		if res.Orders, err = v.checkOrders(ctx, t.Orders); err != nil {
			return nil, err
		}
	}
	if v.orderErrs != nil {
		if res.OrderErrors, err = v.checkDigests(ctx, RoleOrderErrors, t.OrderErrors, "snapshot_date", "error_class", v.orderErrs, v.orderErrsEarly, v.snapshotDates()); err != nil {
			return nil, err
		}
	}
	if t.Marts != "" {
		if res.Marts, err = v.checkMarts(ctx, t.Marts); err != nil {
			return nil, err
		}
	}
	res.OK = true
	for _, h := range res.heads() {
		h.Differences += len(h.Problems)
		h.OK = h.OK && len(h.Problems) == 0
		res.OK = res.OK && h.OK
	}
	if res.Raw != nil {
		res.Expired = res.Raw.Total.Expired
	}
	return res, nil
}

// heads returns the sections that were read.
func (r *Result) heads() []*TableHead {
	var out []*TableHead
	if r.Events != nil {
		out = append(out, &r.Events.TableHead)
	}
	for _, d := range []*DigestResult{r.Raw, r.Errors, r.OrderErrors} {
		if d != nil {
			out = append(out, &d.TableHead)
		}
	}
	if r.Orders != nil {
		out = append(out, &r.Orders.TableHead)
	}
	if r.Marts != nil {
		out = append(out, &r.Marts.TableHead)
	}
	return out
}

func (e *EventsResult) finish(exactlyOnce bool) {
	e.Total = EventCounts{}
	for _, d := range e.Dates {
		e.Total.add(d.EventCounts)
	}
	if e.Error != "" {
		e.Differences++
	}
	e.OK = e.Error == "" && e.Differences == 0 && e.Total.ok(exactlyOnce)
}

// hitDates says whether a date is one the range's hits are filed under.
func (v *verifier) hitDates() func(schema.Date) bool {
	lo, hi := dateOfDay(v.r.From), dateOfDay(v.r.From+v.r.Days-1)
	return func(d schema.Date) bool { return d >= lo && d <= hi }
}

// snapshotDates says whether a date is one of the range's snapshots.
func (v *verifier) snapshotDates() func(schema.Date) bool {
	ds := world.SnapshotDays(v.r.From, v.r.Days)
	if len(ds) == 0 {
		return func(schema.Date) bool { return false }
	}
	lo, hi := dateOfDay(ds[0]), dateOfDay(ds[len(ds)-1])
	return func(d schema.Date) bool { return d >= lo && d <= hi }
}

// walk plans every table's rows from the run's planned units, judging the events table date
// by date as each day's hits are planned. Without the raw table, which matches the messages'
// bytes, the hits are planned from the days' models ([world.Day]: the clean events' ids, and
// the extras with their bytes), not rendered, one day ahead of the store's reading: verify
// then costs little more than reading the store. The snapshots are always the units'.
func (v *verifier) walk(ctx context.Context) error {
	r, start := v.r, time.Now()
	var parts world.Parts
	if v.orders != nil || v.orderErrs != nil || v.opt.Tables.Marts != "" {
		parts |= world.Snapshots
	}
	if v.events != nil || v.errs != nil || v.raw != nil {
		if (v.raw == nil || v.planSegments() > 1) && r.Segment.Whole() {
			if err := v.walkModels(ctx); err != nil {
				return err
			}
		} else {
			parts |= world.Hits
		}
	}
	if parts != 0 {
		v.prog.start(fmt.Sprintf("planning run %s", runName(r)))
		for u, err := range v.w.Units(ctx, r, world.UnitOptions{Parts: parts, Workers: v.opt.Workers}) {
			if err != nil {
				return err
			}
			if u.Kind == world.SnapshotUnit {
				if err := v.snapshotUnit(u); err != nil {
					return err
				}
				continue
			}
			planned, err := v.hitsBatches(ctx, u, v.planned[:0])
			if err != nil {
				return err
			}
			msgs := &dayMessages{day: u.Hits}
			if planned, err = v.planExtras(u.Day, u.Extras, planned, msgs); err != nil {
				return err
			}
			v.planned = planned
			if err := v.judgeDay(ctx, u.Day, planned, msgs); err != nil {
				return err
			}
			v.prog.start(fmt.Sprintf("planning run %s", runName(r)))
		}
		v.prog.done()
	}
	v.opt.Logf("verify: run %s planned in %v", runName(r), time.Since(start).Round(time.Millisecond))
	return nil
}

// plannedDay is one day's planned events, from walkModels' planner.
type plannedDay struct {
	day     int
	planned []plannedEvent
	msgs    *dayMessages
	err     error
}

// walkModels plans the hits from the days' models on a goroutine one day ahead of the
// judging: while a date of the store is read and matched, the next day is generated (and,
// comparing values, rendered and modelled on the workers).
func (v *verifier) walkModels(ctx context.Context) error {
	r := v.r
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	days := make(chan plannedDay)
	free := make(chan []plannedEvent, 2) // the two days' lists in use, recycled
	free <- nil
	free <- nil
	go func() {
		defer close(days)
		for d := r.From; d < r.From+r.Days; d++ {
			var planned []plannedEvent
			select {
			case planned = <-free:
			case <-ctx.Done():
				return
			}
			pd := plannedDay{day: d}
			var extras []world.Extra
			var err error
			if k := v.planSegments(); k > 1 {
				pd.msgs = &dayMessages{build: func() *world.Day {
					day, _ := v.w.DayContext(ctx, d)
					return day
				}}
				planned, err = v.planDaySegments(ctx, d, k, planned[:0])
			} else {
				var day *world.Day
				day, err = v.w.DayContext(ctx, d)
				if err == nil {
					extras, err = day.HitExtrasContext(ctx, r.Garbage)
				}
				if err == nil {
					pd.msgs = &dayMessages{day: day}
					planned, err = v.planDay(ctx, day, planned[:0])
				}
			}
			if err == nil {
				pd.planned, err = v.planExtras(d, extras, planned, pd.msgs)
			}
			pd.err = err
			select {
			case days <- pd:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		v.prog.start(fmt.Sprintf("planning run %s", runName(r)))
		pd, ok := <-days
		v.prog.done()
		if !ok {
			break
		}
		if pd.err != nil {
			return pd.err
		}
		if err := v.judgeDay(ctx, pd.day, pd.planned, pd.msgs); err != nil {
			return err
		}
		free <- pd.planned
	}
	return ctx.Err()
}

// planScale is the most scale whose day verify plans from one model: a larger day is planned
// from its segments, one model of a share of its cookies at a time, and keeps none (a day's
// model at scale 100 is 540 MB, a fifth of it 260 MB, most of which the cohorts it shares
// with the others). What a day plans is the same either way: the union of its segments'
// events, sorted by WatchID.
var planScale = 25.0

// planSegments is how many segment days one day is planned from: 1 (the day's model, kept
// to explain differences) up to scale planScale, or when the range's garbage adds hits,
// which are drawn over the whole day's events.
func (v *verifier) planSegments() int { return planSegments(v.w, v.r) }

func planSegments(w *world.World, r Range) int {
	if r.Garbage.AddsHitExtras() || !r.Segment.Whole() {
		return 1
	}
	return max(1, int(math.Ceil(w.Scale()/planScale)))
}

// PlansFromSegments says whether [Verify] plans the days of run r of w from their segment days,
// one after the other, keeping no day's model: what it holds then is one segment day's model,
// the day's planned rows and the cohorts of the day's audience.
func PlansFromSegments(w *world.World, r Range) bool { return planSegments(w, r) > 1 }

// planDaySegments appends the clean events of day d to planned as planDay does, from k
// segment days built one after the other. Each is dropped, and collected, before the next
// is built: the plan's memory then follows one segment's model, not the day's.
func (v *verifier) planDaySegments(ctx context.Context, d, k int, planned []plannedEvent) ([]plannedEvent, error) {
	for s := range k {
		day, err := v.w.SegmentDay(ctx, d, world.Segment{I: s, N: k})
		if err != nil {
			return planned, err
		}
		var sums []uint64
		if v.raw != nil {
			if cap(v.sums) < day.Len() {
				v.sums = make([]uint64, day.Len())
			}
			sums = v.sums[:day.Len()]
		}
		if planned, err = v.planDayHashing(ctx, day, planned, sums); err != nil {
			return planned, err
		}
		if v.raw != nil {
			v.raw.unit(d)
			v.raw.addClean(d, sums)
		}
		runtime.GC() // the model is garbage now: the next one reuses its memory
	}
	return planned, nil
}

// planDay appends the clean events of day to planned: their WatchIDs and the digests of the
// rows the intake stores of them, rendered and modelled on the workers when values are
// compared (the keys alone need no rendering).
func (v *verifier) planDay(ctx context.Context, day *world.Day, planned []plannedEvent) ([]plannedEvent, error) {
	return v.planDayHashing(ctx, day, planned, nil)
}

// planDayHashing is planDay that also fills sums, when it is not nil, with the SipHash64 of
// each clean event's bytes (for the raw table), rendering each event once for both.
func (v *verifier) planDayHashing(ctx context.Context, day *world.Day, planned []plannedEvent, sums []uint64) ([]plannedEvent, error) {
	l := v.layouts[RoleEvents]
	if sums != nil && (v.events == nil || v.eventsDead || l.keysOnly()) {
		// The events' plan renders nothing: render for the sums alone.
		err := v.parallel(ctx, day.Len(), func(w, lo, hi int) error {
			sc := v.scratch[w]
			for i := lo; i < hi; i++ {
				sc.msg = day.AppendEvent(sc.msg[:0], i)
				sums[i] = SipHash64(sc.msg)
			}
			return nil
		})
		if err != nil {
			return planned, err
		}
		sums = nil
	}
	if v.events == nil {
		return planned, nil
	}
	n := day.Len()
	base := len(planned)
	planned = slices.Grow(planned, n)[:base+n]
	out := planned[base:]
	switch {
	case v.eventsDead:
		for i := range n {
			out[i] = plannedEvent{watchID: day.WatchID(i)}
		}
		return planned, nil
	case l.keysOnly():
		var row []byte
		for i := range n {
			row = l.keyRow(row[:0], day.WatchID(i), day.ClientID(i))
			out[i] = plannedEvent{watchID: day.WatchID(i), digest: l.digest(row)}
		}
		return planned, nil
	}
	err := v.parallel(ctx, n, func(w, lo, hi int) error {
		sc := v.scratch[w]
		for i := lo; i < hi; i++ {
			sc.msg = day.AppendEvent(sc.msg[:0], i)
			var err error
			if sc.row, err = l.hitRowInto(sc.row[:0], sc.msg, &sc.hit); err != nil {
				return err
			}
			out[i] = plannedEvent{watchID: day.WatchID(i), digest: l.digest(sc.row)}
			if sums != nil {
				sums[i] = SipHash64(sc.msg)
			}
		}
		return nil
	})
	return planned, err
}

// planScratch is one worker's memory while planning: a message, its row, its parse.
type planScratch struct {
	msg, row []byte
	hit      intake.StoredHit
}

// parallel runs f over [0, n) in chunks on the workers; f learns its worker's number. A
// chunk is half of one of the world's batches, so that two workers share each batch the
// plan gets: with a worker per 1024 rows, a batch of 1024 was planned on one core.
func (v *verifier) parallel(ctx context.Context, n int, f func(worker, lo, hi int) error) error {
	const chunk = world.BatchEvents / 2
	workers := max(1, min(v.opt.Workers, (n+chunk-1)/chunk))
	for len(v.scratch) < workers {
		v.scratch = append(v.scratch, &planScratch{})
	}
	if workers == 1 {
		return f(0, 0, n)
	}
	var next atomic.Int64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				if err := f(w, lo, min(n, lo+chunk)); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return ctx.Err()
}

// hitsBatches appends the clean messages of a day's unit to planned (their WatchIDs and
// digests), planning the digests of their bytes for the raw table.
func (v *verifier) hitsBatches(ctx context.Context, u *world.Unit, planned []plannedEvent) ([]plannedEvent, error) {
	l := v.layouts[RoleEvents]
	for b := range u.Batches() {
		if v.events != nil {
			n := len(b.Msgs)
			base := len(planned)
			planned = slices.Grow(planned, n)[:base+n]
			out := planned[base:]
			switch {
			case v.eventsDead:
				for i := range n {
					out[i] = plannedEvent{watchID: b.WatchID(i)}
				}
			case l.keysOnly():
				var row []byte
				for i := range n {
					row = l.keyRow(row[:0], b.WatchID(i), parseUint(b.Key(i)))
					out[i] = plannedEvent{watchID: b.WatchID(i), digest: l.digest(row)}
				}
			default:
				err := v.parallel(ctx, n, func(w, lo, hi int) error {
					sc := v.scratch[w]
					for i := lo; i < hi; i++ {
						var err error
						if sc.row, err = l.hitRowInto(sc.row[:0], b.Value(i), &sc.hit); err != nil {
							return err
						}
						out[i] = plannedEvent{watchID: b.WatchID(i), digest: l.digest(sc.row)}
					}
					return nil
				})
				if err != nil {
					b.Release()
					return planned, err
				}
			}
		}
		if v.raw != nil {
			n := len(b.Msgs)
			if cap(v.sums) < n {
				v.sums = make([]uint64, n)
			}
			sums := v.sums[:n]
			v.dig.sums(n, b.Value, sums)
			v.raw.unit(u.Day)
			v.raw.addClean(u.Day, sums)
		}
		b.Release()
	}
	return planned, nil
}

// planExtras plans the extras of day d, whose clean events are planned: the raw and error
// rows they leave, and the accepted ones' events (kept in msgs, to explain their rows); it
// returns planned sorted for judging. It alone writes the raw and error plans (on
// walkModels' goroutine when the days are planned from their models).
func (v *verifier) planExtras(d int, extras []world.Extra, planned []plannedEvent, msgs *dayMessages) ([]plannedEvent, error) {
	date := dateOfDay(d)
	if v.raw != nil {
		v.raw.unit(d)
	}
	if v.errs != nil {
		v.errs.unit(d)
	}
	l := v.layouts[RoleEvents]
	var row []byte
	for i := range extras {
		x := &extras[i]
		if x.Redelivered() {
			if v.raw != nil {
				v.raw.add(SipHash64(x.Value), d, whatRedelivered, "")
			}
			continue
		}
		outcome, ok := world.GarbageOutcome(world.KindHits, x.Class)
		if !ok {
			return nil, fmt.Errorf("store: day %d: hits carry no garbage class %q", d, x.Class)
		}
		what := x.Class + "/" + x.Kind
		switch outcome {
		case intake.NoRow:
			continue
		case intake.Accepted:
			h, ok := intake.ParseStoredHit(x.Value)
			hr := h.Row()
			if !ok || hr.EventDate != date {
				return nil, fmt.Errorf("store: day %d: an %s message (%s) the intake files under %s, not its day's date %s", d, x.Class, x.Kind, hr.EventDate, date)
			}
			if v.events != nil {
				pe := plannedEvent{watchID: hr.WatchID}
				if !v.eventsDead {
					var err error
					if l.keysOnly() {
						row = l.keyRow(row[:0], hr.WatchID, hr.ClientID)
					} else if row, err = l.hitRow(row[:0], x.Value); err != nil {
						return nil, err
					}
					pe.digest = l.digest(row)
				}
				planned = append(planned, pe)
				if msgs.extras == nil {
					msgs.extras = map[uint64][]byte{}
				}
				msgs.extras[hr.WatchID] = x.Value
			}
		default:
			if v.errs != nil {
				v.errs.add(SipHash64(x.Value), d, what, outcome)
			}
		}
		if v.raw != nil {
			v.raw.add(SipHash64(x.Value), d, what, "")
		}
	}
	if v.events == nil {
		return planned, nil
	}
	return sortPlanned(planned), nil
}

// memoryHook, set by a test, is called where the check's memory peaks once a day's model is
// dropped: "judge" as a day's planned events are handed to its judging (they and the raw
// and error tables' rows planned so far are live), "walked" once the run is planned (the raw
// and error tables' plans).
var memoryHook func(stage string)

// judgeDay judges day d's date in the events table against its planned events.
func (v *verifier) judgeDay(ctx context.Context, d int, planned []plannedEvent, msgs *dayMessages) error {
	if v.events == nil {
		return nil
	}
	if memoryHook != nil {
		memoryHook("judge")
	}
	de := EventDate{Day: d, Date: dayDate(d)}
	if v.eventsDead {
		de.Planned = len(planned)
		v.events.Dates = append(v.events.Dates, de)
		return nil
	}
	c, byShard, err := v.judgeDate(ctx, dateOfDay(d), planned, msgs)
	if errors.Is(err, ErrTable) || errors.Is(err, ErrChanged) {
		v.stopNextRead()
		v.events.Error, v.eventsDead = errText(err), true
		de.Planned = len(planned)
		v.events.Dates = append(v.events.Dates, de)
		v.opt.Logf("verify: %s", errText(err))
		return nil
	}
	if err != nil {
		return err
	}
	de.EventCounts, de.OK = c, c.ok(v.opt.ExactlyOnce)
	if cl := v.layouts[RoleEvents].cluster(); cl != nil {
		de.Shards = byShard.list(cl, false)
		v.eventShards.merge(byShard)
	}
	v.events.Dates = append(v.events.Dates, de)
	v.opt.Logf("verify: %s %s: %d of %d planned WatchIDs present, %d missing, %d unplanned, %d changed, %d copies (%d rows read)",
		v.events.Table, de.Date, c.Present, c.Planned, c.Missing, c.Unplanned, c.Changed, c.Copies, c.Rows)
	return nil
}

// judgeDate reads one date of the events table and matches it with planned. The read of
// the run's next date is sent meanwhile: the store sorts it while this date is judged and the
// next day planned, and holds its answer until verify reads it.
func (v *verifier) judgeDate(ctx context.Context, date schema.Date, planned []plannedEvent, msgs *dayMessages) (EventCounts, shardCounter, error) {
	table := v.events.Table
	ahead := true // the next date's read is sent while this one is judged
	for attempt := 1; ; attempt++ {
		diffs := &lister[EventDiff]{max: max(0, v.eventDiffs.max-len(v.eventDiffs.list))}
		cols := &columnCounter{}
		m := newEventMerge(planned, date.String(), v.opt.ExactlyOnce, diffs, v.layouts[RoleEvents], msgs, cols)
		read := v.nextRead
		if read == nil || read.date != date {
			v.stopNextRead()
			read = v.startEventRead(ctx, date, false)
		}
		v.nextRead = nil
		if next := date + 1; ahead && next <= dateOfDay(v.r.From+v.r.Days-1) {
			v.nextRead = v.startEventRead(ctx, next, true)
		}
		v.prog.start(fmt.Sprintf("reading %s, EventDate %s", table, date))
		read.gate <- m
		<-read.done
		v.prog.done()
		err := read.err
		if err == nil {
			c := m.end()
			v.eventDiffs.count += diffs.count
			v.eventDiffs.list = append(v.eventDiffs.list, diffs.list...)
			v.eventCols.merge(cols)
			return c, m.byShard, nil
		}
		if read.ahead && ctx.Err() == nil && !errors.Is(err, ErrTable) && !errors.Is(err, ErrChanged) {
			// A store that drops an answer it could not send for a while (a newer server's
			// http_send_timeout) broke the read sent ahead: read the date afresh, once, and
			// the next ones without reading ahead (a store that fails again fails verify).
			v.opt.Logf("verify: %s, EventDate %s: the read sent ahead broke off (%s); reading it again", table, date, errText(err))
			attempt--
			v.stopNextRead()
			ahead = false
			continue
		}
		if !errors.Is(err, ErrChanged) || attempt == readAttempts {
			return EventCounts{}, nil, err
		}
		v.opt.Logf("verify: %s; reading it again", errText(err))
	}
}

// eventRead is the read of one date of the events table, sent before its rows are wanted: its
// rows wait (in the store) until the merge that judges them is handed over.
type eventRead struct {
	date   schema.Date
	gate   chan *eventMerge // the merge, once the date is planned (buffered: the read may be over)
	done   chan struct{}
	err    error
	ahead  bool // sent ahead of its date's judging
	cancel context.CancelFunc
}

// startEventRead sends the read of date (ahead: before its date is judged).
func (v *verifier) startEventRead(ctx context.Context, date schema.Date, ahead bool) *eventRead {
	ctx, cancel := context.WithCancel(ctx)
	r := &eventRead{date: date, gate: make(chan *eventMerge, 1), done: make(chan struct{}), ahead: ahead, cancel: cancel}
	l := v.layouts[RoleEvents]
	go func() {
		defer close(r.done)
		defer cancel()
		var m *eventMerge
		r.err = v.src.Events(ctx, v.events.Table, date, l.cols, func(row []byte, ends []int, shard int) error {
			if m == nil {
				select {
				case m = <-r.gate:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			v.prog.add(1)
			return m.row(row, ends, shard)
		})
	}()
	return r
}

// stopNextRead cancels the read sent ahead, if any, and waits for it.
func (v *verifier) stopNextRead() {
	if r := v.nextRead; r != nil {
		r.cancel()
		<-r.done
	}
	v.nextRead = nil
}

// snapshotUnit plans one snapshot's order versions (with the rows the intake stores of them)
// and order errors, and keeps the classes of the day whose order window it closes.
func (v *verifier) snapshotUnit(u *world.Unit) error {
	date := dateOfDay(u.Day)
	if v.orderErrs != nil {
		v.orderErrs.unit(u.Day)
	}
	if born, classes, ok := u.Closes(); ok && born >= v.r.From {
		v.closed[born] = classes
	}
	var err error
	carry := func(msg []byte) {
		if v.orders == nil || err != nil {
			return
		}
		err = v.orders.carry(msg, date)
	}
	for b := range u.Batches() {
		for i := range b.Msgs {
			carry(b.Value(i))
		}
		b.Release()
	}
	if err != nil {
		return err
	}
	if v.orders != nil {
		v.orders.snapshots = append(v.orders.snapshots, OrderSnapshot{Day: u.Day, Date: date.String(), Rows: u.Len})
	}
	for i := range u.Extras {
		x := &u.Extras[i]
		if x.Redelivered() {
			continue // a copy of a version: FINAL collapses it
		}
		outcome, ok := world.GarbageOutcome(world.KindOrders, x.Class)
		if !ok {
			return fmt.Errorf("store: snapshot %d: orders carry no garbage class %q", u.Day, x.Class)
		}
		switch outcome {
		case intake.NoRow:
		case intake.Accepted:
			carry(x.Value)
		default:
			if v.orderErrs != nil {
				v.orderErrs.add(SipHash64(x.Value), u.Day, x.Class+"/"+x.Kind, outcome)
			}
		}
	}
	return err
}

// expiry reads when the events table loaded each day of the range and returns which days'
// raw rows are past the raw table's retention: a day is, only when every one of its events
// was loaded longer ago than that (its newest _load_ts), so one old row cannot excuse a day.
// It returns nil (nothing expired) when it cannot tell, and then why.
func (v *verifier) expiry(ctx context.Context) (func(day int) bool, string) {
	t, l := v.opt.Tables, v.layouts[RoleEvents]
	switch {
	case t.Events == "":
		return nil, "without the events table, expired raw rows cannot be told from lost ones"
	case !l.ok():
		return nil, "the events table cannot be read: expired raw rows cannot be told from lost ones"
	case !l.loadTS:
		return nil, fmt.Sprintf("%s lacks _load_ts (a DateTime or DateTime64): expired raw rows cannot be told from lost ones", storeText([]byte(t.Events)))
	}
	loads, now, err := v.src.LoadTimes(ctx, t.Events, dateOfDay(v.r.From), dateOfDay(v.r.From+v.r.Days-1))
	if err != nil {
		return nil, fmt.Sprintf("expired raw rows cannot be told from lost ones: %s", errText(err))
	}
	horizon := now - int64(v.opt.RawRetention/time.Second)
	return func(day int) bool {
		l, ok := loads[dateOfDay(day)]
		return ok && l[1] < horizon
	}, ""
}

// checkDigests matches a raw or error table with its plan; its first read is e, when the
// table's read was started early.
func (v *verifier) checkDigests(ctx context.Context, role, table, hintKey, classColumn string, plan *digestPlan, e *early, inRange func(schema.Date) bool) (*DigestResult, error) {
	plan.sort()
	res := &DigestResult{}
	v.layouts[role].head(&res.TableHead)
	unread := func(why string) *DigestResult {
		res.Error, res.Differences, res.Classes = why, 1, plan.classes
		m := newDigestMerge(plan, v.opt.ExactlyOnce, inRange, &lister[DigestDiff]{})
		for _, d := range plan.units {
			u := m.byUnit[int32(d)] // planned counts only
			res.Units = append(res.Units, *u)
			res.Total.Planned += u.Planned
		}
		return res
	}
	if !v.layouts[role].ok() {
		return unread(res.Error), nil
	}
	var m *digestMerge
	var diffs *lister[DigestDiff]
	var byShard shardCounter
	for attempt := 1; ; attempt++ {
		diffs = &lister[DigestDiff]{max: v.opt.MaxListed}
		m = newDigestMerge(plan, v.opt.ExactlyOnce, inRange, diffs)
		byShard = byShard[:0]
		v.prog.start("reading " + table)
		again, err := v.readWhole(ctx, e, func(hash uint64, hint, class []byte, shard int) {
			m.row(hash, hint, class)
			byShard.add(shard, 1)
			v.prog.add(1)
		}, v.digestsRead(table, hintKey, classColumn))
		v.prog.done()
		e = nil // the early read makes the first attempt only
		if again {
			attempt--
			continue
		}
		if err == nil {
			break
		}
		if errors.Is(err, ErrChanged) && attempt < readAttempts {
			v.opt.Logf("verify: %s; reading it again", errText(err))
			continue
		}
		if errors.Is(err, ErrTable) || errors.Is(err, ErrChanged) {
			v.opt.Logf("verify: %s", errText(err))
			return unread(errText(err)), nil
		}
		return nil, err
	}
	var expired func(int) bool
	if role == RoleRaw {
		m.flush()
		if m.missedAny() {
			// Only missing rows need telling expired from lost.
			var why string
			expired, why = v.expiry(ctx)
			if why != "" {
				res.Notes = append(res.Notes, why)
				if v.opt.Tables.Events != "" && v.layouts[RoleEvents].ok() && !v.layouts[RoleEvents].loadTS {
					// The events table could tell, with its _load_ts: its lack is a difference.
					res.Problems = append(res.Problems, why)
				}
			}
		}
	}
	m.end(res, expired)
	if cl := v.layouts[role].cluster(); cl != nil {
		res.Shards = byShard.list(cl, true)
	}
	res.Diffs, res.Differences, res.Truncated = diffs.list, diffs.count, diffs.truncated()
	res.OK = res.Differences == 0
	for _, u := range res.Units {
		res.OK = res.OK && u.OK
	}
	v.opt.Logf("verify: %s: %d of %d planned rows present, %d missing, %d expired, %d unplanned, %d misclassified, %d copies, %d of other dates",
		table, res.Total.Present, res.Total.Planned, res.Total.Missing, res.Total.Expired, res.Unplanned, res.Total.Misclassified, res.Total.Copies, res.OtherDates)
	return res, nil
}

// checkOrders matches the orders table with the planned versions.
func (v *verifier) checkOrders(ctx context.Context, table string) (*OrdersResult, error) {
	res := &OrdersResult{}
	l := v.layouts[RoleOrders]
	l.head(&res.TableHead)
	if len(v.orders.snapshots) == 0 {
		res.OK = res.Error == ""
		if res.Error != "" {
			res.Differences = 1
		}
		v.opt.Logf("verify: %s: run %s sends no snapshot: nothing to compare", table, runName(v.r))
		return res, nil
	}
	if !l.ok() {
		res.Differences, res.Snapshots = 1, append([]OrderSnapshot(nil), v.orders.snapshots...)
		res.Total.Planned = len(v.orders.latest)
		return res, nil
	}
	var m *orderMerge
	var diffs *lister[OrderDiff]
	var cols *columnCounter
	e := v.ordersEarly
	for attempt := 1; ; attempt++ {
		snaps := append([]OrderSnapshot(nil), v.orders.snapshots...)
		plan := *v.orders
		plan.snapshots = snaps
		diffs = &lister[OrderDiff]{max: v.opt.MaxListed}
		cols = &columnCounter{}
		m = newOrderMerge(&plan, v.opt.ExactlyOnce, diffs, cols)
		var rowErr error
		v.prog.start("reading " + table)
		again, err := v.readWhole(ctx, e, func(_ uint64, row, _ []byte, shard int) {
			if rowErr == nil {
				rowErr = m.row(row, shard)
			}
			v.prog.add(1)
		}, v.ordersRead(table))
		v.prog.done()
		e = nil // the early read makes the first attempt only
		if err == nil {
			err = rowErr
		}
		if again {
			attempt--
			continue
		}
		if err == nil {
			break
		}
		if errors.Is(err, ErrChanged) && attempt < readAttempts {
			v.opt.Logf("verify: %s; reading it again", errText(err))
			continue
		}
		if errors.Is(err, ErrTable) || errors.Is(err, ErrChanged) {
			res.Error, res.Differences = errText(err), 1
			res.Snapshots = snaps
			res.Total.Planned = len(m.planned)
			v.opt.Logf("verify: %s", errText(err))
			return res, nil
		}
		return nil, err
	}
	m.end(res)
	res.Diffs, res.Differences, res.Truncated = diffs.list, diffs.count, diffs.truncated()
	res.Columns = cols.list()
	res.OK = res.Differences == 0 && res.Total.ok(v.opt.ExactlyOnce)
	c := res.Total
	v.opt.Logf("verify: %s: %d of %d planned orders at their latest version, %d missing, %d stale, %d unplanned, %d changed, %d copies",
		table, c.Present, c.Planned, c.Missing, c.Stale, c.Unplanned, c.Changed, c.Copies)
	return res, nil
}

// martClasses are the classes of days[].orders, in table order.
var martClasses = []string{world.ClassMatch, world.ClassCancelled, world.ClassLostEvent, world.ClassDuplicateEvent, world.ClassAmountDelta}

func classCounts(c *world.OrderClasses) map[string]int {
	return map[string]int{world.ClassMatch: c.Match, world.ClassCancelled: c.Cancelled, world.ClassLostEvent: c.LostEvent,
		world.ClassDuplicateEvent: c.DuplicateEvent, world.ClassAmountDelta: c.AmountDelta}
}

// knownMartClasses are the classes the marts view's rows are counted under one by one: the
// inventory's, and the stand's awaiting_order (no closed day may hold it). Any other class is
// summed into one row per day, however many distinct ones the view holds.
var knownMartClasses = append(slices.Clone(martClasses), "awaiting_order")

// checkMarts compares the marts view's class counts of every closed day with the inventory.
func (v *verifier) checkMarts(ctx context.Context, view string) (*MartsResult, error) {
	res := &MartsResult{}
	v.layouts[RoleMarts].head(&res.TableHead)
	closed := world.ClosedDays(v.r.From, v.r.Days)
	if !v.layouts[RoleMarts].ok() {
		res.Differences = 1
		return res, nil
	}
	if len(closed) == 0 {
		res.OK = true
		res.Notes = append(res.Notes, fmt.Sprintf("no day of run %s has its order window closed inside the run: nothing to compare", runName(v.r)))
		v.opt.Logf("verify: %s: %s", view, res.Notes[0])
		return res, nil
	}
	got := map[schema.Date]map[string]int{}
	other := map[schema.Date]*OtherClasses{}
	rows, err := v.src.MartClasses(ctx, view, dateOfDay(closed[0]), dateOfDay(closed[len(closed)-1]), knownMartClasses)
	if errors.Is(err, ErrTable) {
		res.Error, res.Differences = errText(err), 1
		v.opt.Logf("verify: %s", errText(err))
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	for _, row := range rows {
		if row.Class == "" || !slices.Contains(knownMartClasses, row.Class) {
			o := other[row.Day]
			if o == nil {
				o = &OtherClasses{}
				other[row.Day] = o
			}
			o.Rows += int(row.Count)
			o.Distinct += max(1, int(row.Distinct))
			if o.Example == "" {
				o.Example = row.Example
				if row.Class != "" {
					o.Example = storeText([]byte(row.Class))
				}
			}
			continue
		}
		if got[row.Day] == nil {
			got[row.Day] = map[string]int{}
		}
		got[row.Day][row.Class] += int(row.Count)
	}
	diffs := &lister[MartDiff]{max: v.opt.MaxListed}
	for _, d := range closed {
		classes := v.closed[d]
		if classes == nil {
			return nil, fmt.Errorf("store: no snapshot of the run closed day %d, but its window closes in the run", d)
		}
		date := dayDate(d)
		md := MartDay{Day: d, Date: date, Want: classCounts(classes), Got: map[string]int{}, OK: true, Other: other[dateOfDay(d)]}
		g := got[dateOfDay(d)]
		for _, c := range martClasses {
			md.Got[c] = g[c]
		}
		for c, n := range g {
			md.Got[c] = n // awaiting_order too, which the inventory has no word for
		}
		for _, c := range sortedKeys(md.Got) {
			if md.Got[c] != md.Want[c] {
				md.OK = false
				diffs.add(MartDiff{Kind: KindClassCount, Date: date, Class: c, Want: md.Want[c], Got: md.Got[c]})
			}
		}
		if o := md.Other; o != nil {
			md.OK = false
			diffs.add(MartDiff{Kind: KindOtherClasses, Date: date, Class: o.Example, Got: o.Rows, Distinct: o.Distinct})
		}
		res.Days = append(res.Days, md)
	}
	res.Diffs, res.Differences, res.Truncated = diffs.list, diffs.count, diffs.truncated()
	res.OK = res.Differences == 0
	v.opt.Logf("verify: %s: %d closed days, %d class counts differ", view, len(closed), res.Differences)
	return res, nil
}

// parseUint reads a decimal key (a ClientID as the sender keys hits).
func parseUint(b []byte) uint64 {
	var n uint64
	for _, c := range b {
		n = n*10 + uint64(c-'0')
	}
	return n
}

func runName(r Range) string { return r.Name() }

// progress prints what is being read, and how far along, every so often.
type progress struct {
	logf     func(string, ...any)
	mu       sync.Mutex
	activity string
	since    time.Time
	rows     atomic.Int64
	quit     chan struct{}
	wg       sync.WaitGroup
}

func newProgress(logf func(string, ...any), every time.Duration) *progress {
	p := &progress{logf: logf, quit: make(chan struct{})}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.mu.Lock()
				switch n := p.rows.Load(); {
				case p.activity == "":
				case n > 0:
					p.logf("verify: %s: %d rows so far (%v)", p.activity, n, time.Since(p.since).Round(time.Second))
				default:
					p.logf("verify: %s (%v)", p.activity, time.Since(p.since).Round(time.Second))
				}
				p.mu.Unlock()
			}
		}
	}()
	return p
}

func (p *progress) start(activity string) {
	p.mu.Lock()
	p.activity, p.since = activity, time.Now()
	p.rows.Store(0)
	p.mu.Unlock()
}

func (p *progress) add(n int64) { p.rows.Add(n) }

func (p *progress) done() {
	p.mu.Lock()
	p.activity = ""
	p.mu.Unlock()
}

func (p *progress) stop() {
	close(p.quit)
	p.wg.Wait()
}
