package world

import (
	"context"
	"sync"

	"github.com/clickgen/clickgen/schema"
)

// Order is the backend's view of one purchase (orders.md): the same basket, the person behind
// the cookie, the backend's own money, and a fate decided at birth from the ORDERS stream of the
// birth day. Snapshots only read it.
type Order struct {
	ID             string // = the purchase's order number
	Birth          int    // model day of the purchase
	Seq            int    // 1-based number within the birth day
	UserID         uint64
	CreatedAt      schema.Millis
	Items          []schema.OrderItem // after a struck line, if any
	ItemsTotal     int64              // kopecks
	Discount       int64
	Delivery       int64
	Total          int64
	Outcome        int   // outcomePaid, outcomePaidThenCancelled, outcomeUnpaidThenCancelled
	PaidAfter      int64 // seconds after CreatedAt, −1 when never paid
	CancelledAfter int64 // seconds after CreatedAt, −1 when never cancelled
	Late           int   // δ: hidden from the snapshots of Birth … Birth+δ−1
	Struck         bool  // a line was removed (class C, amount_delta)
	Assigned       bool
	Lost           bool  // its purchase event was lost
	Duplicate      bool  // its purchase event was sent twice
	Revenue        int64 // the client's declared revenue (kopecks), before any struck line
	// BadCopies is the number of accepted_bad hits derived from its purchase event (or that
	// event's duplicate copy) under the garbage of the run that holds the order: each lands
	// in ods.event as one more purchase of the order (see [Order.PurchaseRows]). It is 0
	// without garbage; the snapshot rows never depend on it.
	BadCopies int
}

// OrdersOf turns the purchases of day into orders, drawing every order's fate from the ORDERS
// stream of the birth day in the order of orders.md §3.3, for every order of the day.
func (w *World) OrdersOf(day *Day) []Order {
	n := len(day.Purchases)
	s := newStream(w.seed, streamOrders, day.N, 0)
	delivery := make([]int, n)
	outcome := make([]int, n)
	first := make([]int64, n)
	second := make([]int64, n)
	mark := make([]bool, n)
	struck := make([]int, n)
	ms := make([]int64, n)
	late := make([]int, n)
	for i := range n {
		delivery[i] = s.Pick(&deliveryTable)
	}
	for i := range n {
		outcome[i] = s.Pick(&outcomeTable)
	}
	for _, moment := range [][]int64{first, second} {
		for i := range n {
			moment[i] = int64(s.Pick(&momentHoursTable)) * 3600
		}
		for i := range n {
			moment[i] += int64(s.Int(3600))
		}
	}
	for i := range n {
		mark[i] = s.Int(100) < orderDeltaPct
	}
	for i := range n {
		struck[i] = s.Int(len(day.Purchases[i].Lines))
	}
	for i := range n {
		ms[i] = int64(s.Int(1000))
	}
	for i := range n {
		late[i] = s.Pick(&snapshotDelay)
		if day.Purchases[i].Assigned {
			late[i] = 0
		}
	}

	orders := make([]Order, n)
	for i := range n {
		pu := &day.Purchases[i]
		o := &orders[i]
		*o = Order{ID: pu.OrderID, Birth: day.N, Seq: i + 1, UserID: pu.PersonID,
			CreatedAt: schema.Millis(pu.UTCSecond*1000 + ms[i]), Outcome: outcome[i], Late: late[i],
			Assigned: pu.Assigned, Lost: pu.Lost, Duplicate: pu.Duplicate, Revenue: pu.Revenue,
			Delivery: deliveryKopecks[delivery[i]]}
		o.Struck = mark[i] && len(pu.Lines) > 1
		o.Items = make([]schema.OrderItem, 0, len(pu.Lines))
		for li, l := range pu.Lines {
			if o.Struck && li == struck[i] {
				continue
			}
			p := &w.catalog.Products[l.Product]
			o.Items = append(o.Items, schema.OrderItem{SKU: p.SKU, Qty: uint32(l.Qty), Price: p.Price})
			o.ItemsTotal += p.Price * int64(l.Qty)
		}
		if pu.Coupon >= 0 {
			o.Discount = o.ItemsTotal * coupons[pu.Coupon].Percent / 100
		}
		o.Total = o.ItemsTotal - o.Discount + o.Delivery
		switch outcome[i] {
		case outcomePaid:
			o.PaidAfter, o.CancelledAfter = first[i], -1
		case outcomeUnpaidThenCancelled:
			o.PaidAfter, o.CancelledAfter = -1, first[i]
		default:
			o.PaidAfter, o.CancelledAfter = min(first[i], second[i]), max(first[i], second[i])
		}
	}
	return orders
}

// snapshotEdge is the instant of snapshot D's boundary: counter midnight D|D+1, in ms.
func snapshotEdge(d int) schema.Millis { return schema.Millis(dayStartUTC(d+1) * 1000) }

// StateAt returns the order's status and updated_at as of the boundary edge (orders.md §3.4):
// cancel outranks pay; nothing happened yet means created with updated_at = created_at.
func (o *Order) StateAt(edge schema.Millis) (status string, updated schema.Millis) {
	at := func(after int64) (schema.Millis, bool) {
		if after < 0 {
			return 0, false
		}
		t := o.CreatedAt + schema.Millis(after*1000)
		return t, t <= edge
	}
	if t, ok := at(o.CancelledAfter); ok {
		return schema.StatusCancelled, t
	}
	if t, ok := at(o.PaidAfter); ok {
		return schema.StatusPaid, t
	}
	return schema.StatusCreated, o.CreatedAt
}

// InSnapshot reports whether snapshot d carries the order: born inside the window and arrived.
func (o *Order) InSnapshot(d int) bool {
	return o.Birth <= d && d-o.Birth < orderWindowDays && o.Birth+o.Late <= d
}

// Row returns the order as it appears in snapshot d.
func (o *Order) Row(d int) schema.Order {
	status, updated := o.StateAt(snapshotEdge(d))
	return schema.Order{OrderID: o.ID, UserID: o.UserID, Status: status, CreatedAt: o.CreatedAt, UpdatedAt: updated,
		ItemsTotal: o.ItemsTotal, Discount: o.Discount, Delivery: o.Delivery, Total: o.Total, Items: o.Items,
		SnapshotDate: DayDate(d)}
}

// Order classes of the reconciliation mart (orders.md §4.4), in priority order.
const (
	ClassMatch          = "match"
	ClassCancelled      = "cancelled"
	ClassLostEvent      = "lost_event"
	ClassDuplicateEvent = "duplicate_event"
	ClassAmountDelta    = "amount_delta"
)

// PurchaseRows is the number of purchase rows with the order's id that ods.event holds
// (counted with FINAL) once the hits of its birth day have arrived: its purchase event unless
// lost, the duplicate copy, and the accepted_bad copies. Redeliveries are byte-identical and
// collapse into their original.
func (o *Order) PurchaseRows() int {
	n := o.BadCopies
	if !o.Lost {
		n++
	}
	if o.Duplicate {
		n++
	}
	return n
}

// Class returns the order's class once its window has closed, as the stand's mart computes
// it from what landed (orders.md §4.4): cancelled > lost_event (no purchase row) >
// duplicate_event (more than one) > amount_delta > match. Every purchase row carries the
// purchase's revenue, so the declared revenue is Revenue whatever the count.
func (o *Order) Class() string {
	if o.CancelledAfter >= 0 {
		return ClassCancelled
	}
	switch rows := o.PurchaseRows(); {
	case rows == 0:
		return ClassLostEvent
	case rows > 1:
		return ClassDuplicateEvent
	case o.ItemsTotal != o.Revenue:
		return ClassAmountDelta
	}
	return ClassMatch
}

// OrderBook holds the orders of birth days, generating each model day at most once. It is
// safe for concurrent use.
type OrderBook struct {
	w       *World
	garbage Garbage // the hits' garbage: it sets each order's BadCopies
	mu      sync.Mutex
	days    map[int][]Order // lookup only
}

// NewOrderBook returns an empty book of w, for a run without garbage.
func NewOrderBook(w *World) *OrderBook { return newOrderBook(w, Garbage{}) }

// newOrderBook returns an empty book of w for a run whose hits carry garbage g: its orders
// count the accepted_bad copies of their purchase events.
func newOrderBook(w *World, g Garbage) *OrderBook {
	return &OrderBook{w: w, garbage: g, days: map[int][]Order{}}
}

// ordersOf is OrdersOf with the copies the book's garbage adds.
func (b *OrderBook) ordersOf(day *Day) []Order {
	orders := b.w.OrdersOf(day)
	for i, n := range day.acceptedBadCopies(b.garbage) {
		orders[i].BadCopies = n
	}
	return orders
}

// Add records the orders of an already generated day, so the book need not generate it again.
func (b *OrderBook) Add(day *Day) {
	orders := b.ordersOf(day)
	b.mu.Lock()
	b.days[day.N] = orders
	b.mu.Unlock()
}

// Born returns the orders born on day d, generating the day if needed.
func (b *OrderBook) Born(d int) []Order {
	o, _ := b.born(context.Background(), d)
	return o
}

// born is Born building the day within ctx ([World.DayContext]: a snapshot of day 7 at
// scale 100 builds seven days, 20 s that a signal now ends), returning ctx's error when it
// ends first.
func (b *OrderBook) born(ctx context.Context, d int) ([]Order, error) {
	b.mu.Lock()
	o, ok := b.days[d]
	b.mu.Unlock()
	if ok {
		return o, nil
	}
	day, err := b.w.DayContext(ctx, d)
	if err != nil {
		return nil, err
	}
	o = b.ordersOf(day)
	b.mu.Lock()
	b.days[d] = o
	b.mu.Unlock()
	return o, nil
}

// Forget drops the orders born before day d (they are out of every later window).
func (b *OrderBook) Forget(before int) {
	b.mu.Lock()
	for d := range b.days {
		if d < before {
			delete(b.days, d)
		}
	}
	b.mu.Unlock()
}

// Snapshot returns the rows of snapshot d (d ≥ 0) in ascending order_id: orders born
// max(0, d−6) … d that have arrived, in their state at counter midnight d|d+1.
func (b *OrderBook) Snapshot(d int) []schema.Order {
	rows, _ := b.snapshot(context.Background(), d)
	return rows
}

// snapshot is Snapshot building the days it needs within ctx.
func (b *OrderBook) snapshot(ctx context.Context, d int) ([]schema.Order, error) {
	var rows []schema.Order
	for day := max(0, d-orderWindowDays+1); day <= d; day++ {
		orders, err := b.born(ctx, day)
		if err != nil {
			return nil, err
		}
		for i := range orders {
			if orders[i].InSnapshot(d) {
				rows = append(rows, orders[i].Row(d))
			}
		}
	}
	return rows, nil
}
