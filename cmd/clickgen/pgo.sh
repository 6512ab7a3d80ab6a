#!/bin/sh
# Refreshes default.pgo, the profile go build uses to optimise clickgen: whole runs of the
# main job on one core, one segment of it, and a day with garbage. Run it as `go generate ./cmd/clickgen`.
set -eu
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
go build -pgo=off -o "$d/clickgen" .
for i in 1 2 3; do
	CLICKGEN_CPUPROFILE="$d/batch.$i" GOMAXPROCS=1 "$d/clickgen" batch --day 0 --days 8 --file /dev/null 2>/dev/null
done
CLICKGEN_CPUPROFILE="$d/segment" GOMAXPROCS=1 "$d/clickgen" batch --day 0 --days 8 --segment 1/4 --file /dev/null 2>/dev/null
CLICKGEN_CPUPROFILE="$d/garbage" "$d/clickgen" batch --day 0 --days 2 --garbage 0.05 --file /dev/null 2>/dev/null
go tool pprof -proto "$d"/batch.* "$d/segment" "$d/garbage" >default.pgo
