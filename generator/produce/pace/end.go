package pace

import "time"

// End returns the elapsed time at which the shape p's last message is due — of its first
// messages only, when messages is positive — and true; false when p releases more than 2^62
// messages. A shape that goes on ends, as Due sees it, where its due times no longer fit a
// time.Duration (about 292 years); one that releases nothing ends at 0. Like Due it reads no
// clock: a caller checks before a run that a warm-up leaves something of it to measure.
func End(p Pacer, messages uint64) (time.Duration, bool) {
	if messages > 0 {
		if d, ok := p.Due(messages - 1); ok {
			return d, true
		}
	}
	if _, ok := p.Due(0); !ok {
		return 0, true
	}
	lo, hi := uint64(0), uint64(1) // Due(lo) ok; find hi whose Due is not
	for {
		if _, ok := p.Due(hi); !ok {
			break
		}
		lo, hi = hi, hi*2
		if hi > 1<<62 {
			return 0, false
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if _, ok := p.Due(mid); ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	d, _ := p.Due(lo)
	return d, true
}
