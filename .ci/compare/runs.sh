#!/usr/bin/env bash
# runs.sh BIN OUTDIR: short real runs (files, the embedded broker), their data files' SHA-256,
# and stdout/stderr with timings, rates and ports masked, for comparison between builds; live
# progress lines vary between two runs of one binary. OUTDIR must be under /tmp.
set -u
bin=$(realpath "$1"); out=$(realpath -m "$2")
case "$out" in /tmp/?*) ;; *) echo "refusing output dir $out" >&2; exit 2;; esac
rm -rf "$out"; mkdir -p "$out"; tmp=$(mktemp -d)
mask() { sed -E 's/[0-9]+(\.[0-9]+)?(ns|µs|us|ms|s|m|h)\b/<T>/g; s/[0-9]+(\.[0-9]+)? (msg|records|events)\/s(ec)?/<R>/g; s/[0-9]+(\.[0-9]+)? MB\/s(ec)?/<MBS>/g; s/127\.0\.0\.1:[0-9]+/<ADDR>/g; s/[0-9.]+ (MiB|GiB|MB)/<SIZE>/g; s/lag [0-9.]+s \(max [0-9.]+s\)/lag <L>/g; s/now [0-9.]+/now <N>/g; s/[0-9.]+ ms/<MS>/g; s/played [0-9]+ (of [0-9]+, )?model time [^,]+/played <P>/g; s/[0-9]+ records sent/<N> records sent/g; s/[0-9]+ total/<N> total/g; s/target [0-9]+\/s/target <R>/g; s/[0-9]+ msg\/s/<R>/g'; }
r() { # r NAME ARGS... (data in $tmp/NAME.data if the args name it)
  local name=$1; shift
  ( cd "$tmp" && env -i PATH=/usr/bin:/bin HOME=/tmp "$bin" "$@" >"$tmp/$name.stdout" 2>"$tmp/$name.stderr" </dev/null; echo $? >"$out/$name.rc" )
  mask <"$tmp/$name.stdout" >"$out/$name.out"; mask <"$tmp/$name.stderr" >"$out/$name.err"
  [ -f "$tmp/$name.data" ] && sha256sum <"$tmp/$name.data" >"$out/$name.sha"
  [ -f "$tmp/$name.json" ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted(d.keys())); t=d.get("topics",{}); print({k:{kk:vv for kk,vv in v.items() if kk in ("sent","acked","failed","unaccounted","partitions")} for k,v in t.items()}); print([ (u.get("kind"),u.get("day"),u.get("messages")) for u in d.get("units",[])])' "$tmp/$name.json" >"$out/$name.report" 2>&1
}
r batch2 batch --day 0 --days 2 --file batch2.data --report batch2.json
r batchg batch --day 1 --garbage 0.05 --redeliver 0.01 --segment 1/3 --file batchg.data --report batchg.json
r batchlim batch --day 0 --limit 1234 --file batchlim.data
r snap snapshot --day 0 --days 3 --file snap.data --report snap.json
r live live --day 0 --speed 86400 --file live.data --progress-every 200ms --report live.json
r livemax live --day 2 --speed 86400 --max-rate 100000/s --segment 0/2 --file livemax.data
r inv inventory --day 0 --days 2
r invg inventory --day 0 --garbage 0.05 --redeliver 0.01
r smoke run smoke
r stress run stress --rate 2000/s --duration 2s --interval 1s
r runlive run live --speed 86400 --interval 500ms
rm -rf "$tmp"
echo "$(ls "$out" | grep -c rc$) runs recorded in $out" >&2
