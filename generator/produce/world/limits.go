package world

import (
	"fmt"
	"math"
)

// MaxDay is the last model day whose events the wire formats can carry: hits' UTCEventTime
// is a ClickHouse DateTime (uint32 seconds since 1970, last second 2106-02-07T06:28:15Z), and
// day MaxDay (2106-02-06) is the last whose every second, up to its counter midnight at
// 19:59:59Z, fits. From day MaxDay+1 on UTCEventTime would wrap to 1970 while EventDate (a
// 16-bit day number, good to 2149) would not. Orders' DateTime64 times reach year 9999.
const MaxDay = (math.MaxUint32+CounterTZMinutes*60+1)/daySeconds - 1 - OriginDate

// CheckDays reports whether model days [from, from+n) are all playable: from ≥ 0, n ≥ 1
// and from+n-1 ≤ [MaxDay], without overflowing for any int.
func CheckDays(from, n int) error {
	switch {
	case from < 0:
		return fmt.Errorf("day %d: model days start at 0", from)
	case from > MaxDay:
		return fmt.Errorf("day %d: the last model day is %d (%s): UTCEventTime is a DateTime, which ends in 2106", from, MaxDay, DayDate(MaxDay))
	case n < 1:
		return fmt.Errorf("%d days: want at least 1", n)
	case n > MaxDay-from+1:
		return fmt.Errorf("days %d to %d: the last model day is %d (%s): UTCEventTime is a DateTime, which ends in 2106", from, from+min(n, math.MaxInt-from)-1, MaxDay, DayDate(MaxDay))
	}
	return nil
}
