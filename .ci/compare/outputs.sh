#!/usr/bin/env bash
# outputs.sh BIN OUTDIR: the --help of every verb and a set of misuse runs (each exits at once,
# no network), stdout, stderr and exit code each, for byte-for-byte comparison between builds
# of a change that must keep behaviour (issue 22): build both, record both under /tmp, diff -r.
set -u
bin=$(realpath "$1"); out=$(realpath -m "$2")
case "$out" in /tmp/?*) ;; *) echo "refusing output dir $out" >&2; exit 2;; esac
rm -rf "$out"; mkdir -p "$out"
n=0
rec() { # rec NAME ARGS...
  local name=$1; shift
  n=$((n+1))
  ( cd /tmp && env -i PATH=/usr/bin:/bin HOME=/tmp "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null; echo $? >"$out/$name.rc" )
}
recenv() { # recenv NAME VAR=VAL -- ARGS...
  local name=$1; shift; local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  ( cd /tmp && env -i PATH=/usr/bin:/bin HOME=/tmp "${envs[@]}" "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null; echo $? >"$out/$name.rc" )
}
rec help --help
rec nohelp
for v in run profiles batch live snapshot inventory verify plot inject catalog broker schema version; do rec "help-$v" $v --help; done
rec batch-noday batch --file /dev/null
rec batch-negday batch --day -1 --file /dev/null
rec batch-bigday batch --day 29105 --file /dev/null
rec batch-days0 batch --day 0 --days 0 --file /dev/null
rec batch-seed0 batch --day 0 --seed 0 --file /dev/null
rec batch-scale0 batch --day 0 --scale 0 --file /dev/null
rec batch-scaleneg batch --day 0 --scale -1 --file /dev/null
rec batch-scalebig batch --day 0 --scale 5000 --file /dev/null
rec batch-limitneg batch --day 0 --limit -1 --file /dev/null
rec batch-workers batch --day 0 --workers 1000000000 --file /dev/null
rec batch-nosink batch --day 0
rec batch-both batch --day 0 --file /dev/null --brokers 127.0.0.1:1 --topic hits
rec batch-catalog batch --day 0 --catalog /nonexistent --file /dev/null
rec batch-mix batch --day 0 --garbage-mix not_an_object=1 --file /dev/null
rec batch-mixbad batch --day 0 --garbage 0.1 --garbage-mix nope=1 --file /dev/null
rec batch-mixbig batch --day 0 --garbage 0.1 --garbage-mix not_an_object=4294967296 --file /dev/null
rec batch-garbneg batch --day 0 --garbage -1 --file /dev/null
rec batch-seg batch --day 0 --segment 4/4 --file /dev/null
rec batch-segs batch --day 0 --segment 0/4 --segments 4 --file /dev/null
rec batch-segsnoidx batch --day 0 --segments 4 --file /dev/null
rec batch-report batch --day 0 --file /tmp/x.jsonl --report /tmp/x.jsonl
rec batch-linger batch --day 0 --file /dev/null --metrics-linger 5s
rec batch-follow batch --day 0 --file /dev/null --follow-group g
rec batch-comp batch --day 0 --file /dev/null --compression brotli
rec batch-tls batch --day 0 --brokers 127.0.0.1:1 --topic hits --tls-cert /x
rec batch-sasl batch --day 0 --brokers 127.0.0.1:1 --topic hits --sasl-mechanism PLAIN
rec batch-maxmem batch --day 0 --max-memory 1KiB --file /dev/null
rec batch-extra batch --day 0 --file /dev/null extra
rec batch-unknown batch --day 0 --nope
recenv batch-envday GENERATOR_DAY=x -- batch --file /dev/null
recenv batch-envseed GENERATOR_SEED=0 -- batch --day 0 --file /dev/null
recenv batch-envseg CLICKGEN_SEGMENT=9/2 -- batch --day 0 --file /dev/null
recenv batch-envsegs CLICKGEN_SEGMENT=1/2 -- batch --day 0 --segments 2 --file /dev/null
recenv batch-jobidx JOB_COMPLETION_INDEX=x -- batch --day 0 --segments 2 --file /dev/null
recenv batch-envlimit GENERATOR_LIMIT=-3 -- batch --day 0 --file /dev/null
rec live-noday live --file /dev/null
rec live-speed0 live --day 0 --speed 0 --file /dev/null
rec live-speedtiny live --day 0 --speed 1e-9 --file /dev/null
rec live-progress live --day 0 --progress-every 1ms --file /dev/null
rec live-maxrate live --day 0 --max-rate abc --file /dev/null
recenv live-envspeed GENERATOR_SPEED=-1 -- live --day 0 --file /dev/null
rec live-days live --day 0 --days 2 --file /dev/null
rec snap-noday snapshot --file /dev/null
rec snap-scale snapshot --day 0 --scale 0 --file /dev/null
rec inv-noday inventory
rec inv-scale inventory --day 0 --scale 0
rec inv-workers inventory --day 0 --workers -1
rec inv-merge inventory --merge --day 0
rec run-unknown run nope
rec run-two run fill smoke
rec run-scaleneg run fill --scale -2
rec run-scalebig run fill --scale 5000
rec run-seed0 run fill --seed 0
rec run-interval run fill --interval 1ms
rec run-speed run fill --speed 1e-9
rec run-rate run stress --rate nope
rec run-pace run fill --pace sideways
rec run-send run fill --send nothing
rec run-workers run fill --workers -1
rec run-mix run fill --garbage 0.01 --garbage-mix key_field_unparsed=1,field_invalid=4294967296
rec run-dur run stress --duration -1s
rec run-file run --profile-file /nonexistent
rec run-filebad run smoke --profile-file /etc/hostname
rec run-maxrate run fill --max-rate 0/s
rec run-days run fill --days 0
rec run-bigday run fill --day 29104 --days 2
rec verify-noday verify
rec verify-nobrokers verify --day 0
rec verify-scale verify --day 0 --scale 0 --brokers 127.0.0.1:1
rec inject-nokind inject --file -
rec inject-day inject --file - --kind hits --class accepted_bad --day 2147483647
rec inject-class inject --file - --kind hits --class nope --day 0
rec plot-none plot
rec plot-missing plot /nonexistent.json
rec schema-bad schema --format nope
rec profiles-show profiles show nope
rec catalog-extra catalog extra
rec broker-addr broker --listen nope
rec version version
echo "$(ls "$out" | grep -c rc$) runs recorded in $out" >&2
