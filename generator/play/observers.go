package play

// ExtraObserver is an [Observer] that also hears each malformed message and re-send the run
// hands to the sink: topic, and the garbage class (world.Garbage*), "" for a re-send of a
// clean message. Run calls ExtraSent, when its observer has it, on the goroutine that called
// Run, right after the sink accepted the message; it must return at once.
type ExtraObserver interface {
	Observer
	ExtraSent(topic, class string)
}

// Observers returns an Observer telling each of obs, in order, what the run does (nil ones are
// skipped). It is an [ExtraObserver], passing ExtraSent on to those of obs that are.
func Observers(obs ...Observer) ExtraObserver {
	var m multiObserver
	for _, o := range obs {
		if o != nil {
			m = append(m, o)
		}
	}
	return m
}

type multiObserver []Observer

func (m multiObserver) UnitStarted(u Unit) {
	for _, o := range m {
		o.UnitStarted(u)
	}
}

func (m multiObserver) UnitDone(r UnitResult) {
	for _, o := range m {
		o.UnitDone(r)
	}
}

func (m multiObserver) Stopped(reason StopReason, res Result) {
	for _, o := range m {
		o.Stopped(reason, res)
	}
}

func (m multiObserver) ExtraSent(topic, class string) {
	for _, o := range m {
		if x, ok := o.(ExtraObserver); ok {
			x.ExtraSent(topic, class)
		}
	}
}
