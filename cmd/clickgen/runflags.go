package main

import (
	"context"
	"errors"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/profiles"
)

// runProfile is the profile `clickgen run` plays: the one its argument names (the default
// one if none) or --profile-file, with the flags given (or set by their variables) as
// overrides, its defaults filled in and its days checked; and the segment to play. A refusal
// names the flags that carried the values, and the profile for its own values ("profile
// stress: …").
func (b *binding) runProfile(ctx context.Context) (profiles.Profile, world.Segment, error) {
	p, err := b.loadProfile(ctx)
	if err != nil {
		return p, world.Segment{}, err
	}
	what := "profile " + p.Name
	if b.v.profileFile != "" {
		what = b.v.profileFile
	}
	if p, err = p.Apply(b.overrides()); err != nil {
		text, named := b.say(err)
		if invalid := (*profiles.InvalidError)(nil); errors.As(err, &invalid) && !named {
			text = what + ": " + text
		}
		return p, world.Segment{}, b.usage(&reworded{text, err})
	}
	if err := checkEvery("--interval", b.v.interval); err != nil {
		return p, world.Segment{}, b.usage(err)
	}
	seg, err := b.resolveSegment()
	if err != nil {
		return p, seg, b.usage(err)
	}
	p = p.WithDefaults()
	days := p.Play.Days
	if p.Play.Endless {
		days = 1 // the first day; an endless run stops by a condition
	}
	return p, seg, b.refuse(profiles.CheckDays(p.Play.Day, days))
}

// loadProfile loads the profile run's argument names (profiles.Default if none) or
// --profile-file.
func (b *binding) loadProfile(ctx context.Context) (profiles.Profile, error) {
	fs, file := b.fs, b.v.profileFile
	switch {
	case fs.NArg() > 1:
		return profiles.Profile{}, usagef(b.verb.name, "unexpected argument %q: one profile at most", fs.Arg(1))
	case fs.NArg() == 1 && file != "":
		return profiles.Profile{}, usagef(b.verb.name, "both profile %s and --profile-file given: choose one", fs.Arg(0))
	case file != "":
		p, err := profiles.LoadFile(ctx, file)
		return p, b.refuse(err)
	}
	name := profiles.Default
	if fs.NArg() == 1 {
		name = fs.Arg(0)
	}
	p, err := profiles.Load(name)
	return p, b.refuseProfile(err)
}

// refuseProfile is refuse for the refusal of a profile's name: an unknown one offers the
// embedded profiles spelled like it (`run fil`: did you mean fill?).
func (b *binding) refuseProfile(err error) error {
	var unknown *profiles.UnknownError
	if !errors.As(err, &unknown) {
		return b.refuse(err)
	}
	text, _ := b.say(err)
	return b.usage(&reworded{text + didYouMean(unknown.Name, profiles.List(), ""), err})
}
