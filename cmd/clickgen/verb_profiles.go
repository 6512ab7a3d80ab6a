package main

import (
	"context"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/profiles"
)

const profilesHelp = `List the embedded run profiles with what each plays ('profiles list'), or print one as the
YAML file it is, comments included ('profiles show NAME'). Copy one to start your own and
play it with 'clickgen run --profile-file FILE'; 'profiles show --profile-file FILE' checks
such a file (exit code 2 and the field at fault if it is broken) and prints it.`

func runProfiles(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, true); err != nil {
		return err
	}
	fs, file := b.fs, &b.v.profileFile
	if fs.NArg() == 0 {
		return usagef("profiles", "want 'list' or 'show NAME'")
	}
	switch sub := fs.Arg(0); sub {
	case "list":
		if fs.NArg() > 1 || *file != "" {
			return usagef("profiles", "list takes no arguments")
		}
		return profiles.WriteList(sio.out)
	case "show":
		var src []byte
		var err error
		switch {
		case fs.NArg() == 2 && *file == "":
			src, err = profiles.Source(fs.Arg(1))
		case fs.NArg() == 1 && *file != "":
			if err := checkPaths("profiles", fileio.Input("--profile-file", *file)); err != nil {
				return err
			}
			src, err = profiles.SourceFile(ctx, *file)
		default:
			return usagef("profiles", "show wants one profile NAME or --profile-file FILE")
		}
		if err != nil {
			return b.refuseProfile(err)
		}
		_, err = sio.out.Write(src)
		return err
	default:
		return usagef("profiles", "unknown subcommand %q: want list or show%s", sub, didYouMean(sub, []string{"list", "show"}, ""))
	}
}
