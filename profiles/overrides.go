package profiles

import (
	"errors"
	"strconv"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Overrides are changes to a profile made on the command line (the flags of `clickgen run`,
// and of batch, live and snapshot, whose built-in profiles they apply to):
// a nil field leaves the profile's value alone. The values are already parsed (a shape, a
// rate, a mix); [Profile.Apply] checks them and how they combine. Errors about an override
// name the field it overrides (world.seed) as a *[ValueError], or are one of this package's
// Err values; the command says which flag carried it.
type Overrides struct {
	Seed    *uint64  // world.seed; an explicit 0 is refused ([CheckSeed])
	Scale   *float64 // world.scale, checked by [CheckScale]: an explicit 0 is refused, as on every verb
	Catalog *string  // world.catalog

	Day  *int    // play.day, at least 0
	Days *int    // play.days, at least 1; ends play.endless
	Send *string // play.send

	// Pace is the pacing mode. Speed implies mode replay and Rate mode rate; a Pace that
	// contradicts them is an error, and Speed and Rate exclude each other. Changing the mode
	// drops the old mode's speed or rate (the ceiling MaxRate stays).
	Pace    *string
	Speed   *float64    // pacing.speed
	Rate    *pace.Shape // pacing.rate
	MaxRate *pace.Rate  // pacing.max_rate; zero clears the ceiling

	GarbageRate *float64   // garbage.rate
	Mix         *world.Mix // garbage.mix; a nil Mix (an empty text) is refused
	Redeliver   *float64   // garbage.redeliver

	Duration *time.Duration // stop.duration
	Messages *int64         // stop.messages, at least 0 (no limit)
}

// InvalidError is a profile that fails [Profile.Validate] once the overrides are applied. It
// reads as Validate's error; the caller knows what to call the profile (its name, a file).
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// Say is Validate's error with the fields it names named by names (field.Say).
func (e *InvalidError) Say(names field.Names) string { return field.Say(e.Err, names) }

// Apply returns p with o applied, validated. An override that changes what is played (the
// world, the days, what is sent, garbage, the stop condition; not the pacing) drops p's Expect,
// which describes the profile as written. An error about an override itself is a *ValueError
// naming the field it overrides, or ErrSpeedAndRate or ErrMixWithoutRate; an invalid result is
// an *InvalidError. Defaults are not filled in: call WithDefaults.
func (p Profile) Apply(o Overrides) (Profile, error) {
	if o.Seed != nil {
		if err := CheckSeed(*o.Seed); err != nil {
			return p, err
		}
	}
	if o.Scale != nil {
		// A profile's 0 means 1; a 0 someone typed means what it says, and no world has it
		// (run used to play --scale 0 as 1 while batch refused it).
		if err := CheckScale(*o.Scale); err != nil {
			return p, err
		}
	}
	switch {
	case o.Day != nil && *o.Day < 0:
		return p, &ValueError{Field: "play.day", Value: strconv.Itoa(*o.Day), Err: errors.New("model days start at 0")}
	case o.Days != nil && *o.Days < 1:
		return p, &ValueError{Field: "play.days", Value: strconv.Itoa(*o.Days), Err: errors.New("want at least 1")}
	case o.Mix != nil && *o.Mix == nil:
		return p, &ValueError{Field: "garbage.mix", Err: errors.New("empty mix")}
	case o.Messages != nil && *o.Messages < 0:
		return p, &ValueError{Field: "stop.messages", Value: strconv.FormatInt(*o.Messages, 10), Err: errors.New("want 0 (no limit) or more")}
	case o.Speed != nil && o.Rate != nil:
		return p, ErrSpeedAndRate
	}
	changed := false // does an override change what is played?
	apply := func(set bool, f func()) {
		if set {
			f()
			changed = true
		}
	}
	apply(o.Seed != nil, func() { p.World.Seed = *o.Seed })
	apply(o.Scale != nil, func() { p.World.Scale = *o.Scale })
	apply(o.Catalog != nil, func() { p.World.Catalog = *o.Catalog })
	apply(o.Day != nil, func() { p.Play.Day = *o.Day })
	apply(o.Days != nil, func() { p.Play.Days, p.Play.Endless = *o.Days, false })
	apply(o.Send != nil, func() { p.Play.Send = *o.Send })
	apply(o.GarbageRate != nil, func() { p.Garbage.Rate = *o.GarbageRate })
	apply(o.Mix != nil, func() { p.Garbage.Mix = *o.Mix })
	apply(o.Redeliver != nil, func() { p.Garbage.Redeliver = *o.Redeliver })
	apply(o.Duration != nil, func() { p.Stop.Duration = *o.Duration })
	apply(o.Messages != nil, func() { p.Stop.Messages = *o.Messages })

	mode := p.Pacing.Mode
	switch {
	case o.Pace != nil:
		mode = *o.Pace
		if (o.Speed != nil && mode != PaceReplay) || (o.Rate != nil && mode != PaceRate) {
			return p, &ValueError{Field: "pacing.mode", Value: mode, Err: ErrModeContradicts}
		}
	case o.Speed != nil:
		mode = PaceReplay
	case o.Rate != nil:
		mode = PaceRate
	}
	if mode != p.Pacing.Mode {
		p.Pacing = Pacing{Mode: mode, MaxRate: p.Pacing.MaxRate}
	}
	if o.Speed != nil {
		if _, err := pace.Replay(*o.Speed); err != nil {
			return p, &ValueError{Field: "pacing.speed", Err: err}
		}
		p.Pacing.Speed = *o.Speed
	}
	if o.Rate != nil {
		p.Pacing.Rate = *o.Rate
	}
	if o.MaxRate != nil {
		p.Pacing.MaxRate = *o.MaxRate
	}
	if changed {
		p.Expect = Expect{}
	}
	if o.Mix != nil && p.Garbage.Rate == 0 {
		// batch refuses the same flags: a mix alone ran without garbage, exit 0.
		return p, ErrMixWithoutRate
	}
	if err := p.Validate(); err != nil {
		return p, &InvalidError{err}
	}
	return p, nil
}
