#!/usr/bin/env bash
# The whole benchmark in one command: builds the load generator and the zlib ceiling (release), then
# runs every scenario of docs/benchmarks.md against a fresh release firehose-local, the zlib ceiling
# and the moto peer, and prints the table with ratios and targets. Loopback only; bounded in time
# (about 10 minutes with the defaults, 2 with --quick).
#
#   Benchmarks/run.sh                 # 3 runs of 15 s per scenario
#   Benchmarks/run.sh --quick         # 1 run of 5 s per scenario
#   Benchmarks/run.sh --only gzip-1-stream-fsync,ceiling,moto --runs 5
#   FIREHOSE_LOCAL_BINARY=/path/to/firehose-local Benchmarks/run.sh
#
# Other options: see `python3 Benchmarks/bench.py --help`. Needs moto[server] and boto3 for the peer
# (`pip install 'moto[server]' boto3`; --no-moto skips it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"

swift build -c release --package-path "$here" --product firehose-load >&2
swift build -c release --package-path "$here" --product deflate-ceiling >&2
swift build -c release --package-path "$here" --product recorder-bench >&2
swift build -c release --package-path "$here" --product kinesis-read >&2
# The transformation function starts a process per batch in command mode: linked statically it starts
# in about 4.5 ms rather than 11 (docs/benchmarks.md), in a build folder of its own (the flag applies to
# everything a build compiles).
static=(-c release --package-path "$here" --scratch-path "$here/.build/static-stdlib")
swift build "${static[@]}" --product lambda-identity -Xswiftc -static-stdlib >&2
function_dir="$(swift build "${static[@]}" --show-bin-path)"
bin_dir="$(swift build -c release --package-path "$here" --show-bin-path)"

server="${FIREHOSE_LOCAL_BINARY:-$root/.build/release/firehose-local}"
if [[ ! -x "$server" ]]; then
    swift build -c release --package-path "$root" --product firehose-local >&2
fi

if ! python3 -c 'import moto.server, boto3' 2>/dev/null; then
    echo "moto[server] or boto3 missing: pip install 'moto[server]' boto3 (or pass --no-moto)" >&2
fi

mkdir -p "$here/.build/results"
exec python3 "$here/bench.py" --server "$server" --bin-dir "$bin_dir" --function-dir "$function_dir" \
    --out "$here/.build/results/$(date -u +%Y%m%dT%H%M%SZ).json" "$@"
