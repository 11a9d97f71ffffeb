#!/usr/bin/env bash
# A CI job against firehose-local, start to finish:
#   1. start the server in the background on a free port (the bound port lands in a port file);
#   2. create a delivery stream with the AWS CLI, exactly as against AWS;
#   3. put records;
#   4. wait for the object with GET /_local/wait (no sleeps: it answers the moment the object exists);
#   5. assert the object's content with `firehose-local objects` and `firehose-local cat`;
#   6. stop with SIGTERM and check that the server exited 0.
#
# Needs bash, curl and the AWS CLI (v1 or v2). Environment:
#   FIREHOSE_LOCAL_BIN  the firehose-local binary (default: firehose-local on PATH)
#   AWS_CLI             how to run the AWS CLI (default: aws; e.g. "python3 -m awscli")
#
# Getting firehose-local in CI, either way:
#   with Swift     swift build -c release, then FIREHOSE_LOCAL_BIN=.build/release/firehose-local
#   without Swift  pip install firehose_local-*.whl (built once by scripts/package, kept as the job's
#                  artifact or cache), which puts `firehose-local` on PATH; or unpack the release
#                  tarball and set FIREHOSE_LOCAL_BIN=firehose-local-*/bin/firehose-local
# Run it from the repository:  FIREHOSE_LOCAL_BIN=.build/debug/firehose-local docs/ci-example.sh
set -euo pipefail

FIREHOSE_LOCAL_BIN=${FIREHOSE_LOCAL_BIN:-firehose-local}
AWS_CLI=${AWS_CLI:-aws}
STREAM=ci-events
BUCKET=ci-bucket

work=$(mktemp -d)
data="$work/data"
port_file="$work/port"
server_log="$work/server.log"
server_pid=

log() { printf '== %s\n' "$*"; }
fail() {
    printf 'FAILED: %s\n' "$*" >&2
    if [ -f "$server_log" ]; then
        printf -- '--- server log ---\n' >&2
        tail -n 50 "$server_log" >&2
    fi
    exit 1
}
cleanup() {
    # Only reached with the server still running when something failed.
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# Any key pair works with the default configuration (test / test); keep the machine's own AWS
# configuration out of the way.
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_PROFILE AWS_SESSION_TOKEN

# 1. Start the server on a free port; it writes the port to the file once it listens.
log "starting firehose-local"
"$FIREHOSE_LOCAL_BIN" serve --port 0 --port-file "$port_file" --data-dir "$data" >"$server_log" 2>&1 &
server_pid=$!
for _ in $(seq 200); do # at most 20 s
    [ -s "$port_file" ] && break
    kill -0 "$server_pid" 2>/dev/null || fail "firehose-local exited during start-up"
    sleep 0.1
done
[ -s "$port_file" ] || fail "no port file after 20 s"
endpoint="http://127.0.0.1:$(cat "$port_file")"
curl -sf --max-time 5 "$endpoint/_local/health" >/dev/null || fail "health check failed at $endpoint"
log "listening at $endpoint"

firehose() { $AWS_CLI firehose "$@" --endpoint-url "$endpoint" --output text; }
# AWS CLI v2 base64-decodes blob arguments by default; v1 sends the text as it is. Make both send
# the text as it is.
binary_format=()
if $AWS_CLI --version 2>&1 | grep -q '^aws-cli/2'; then binary_format=(--cli-binary-format raw-in-base64-out); fi

# 2. Create the stream, as against AWS: deliver at the end of every request (IntervalInSeconds 0),
#    gzip, one record per line.
#    (A firehose-local without CreateDeliveryStream: put the same definition in a config file
#     instead and start the server with --config FILE:
#       DeliveryStreams:
#         - DeliveryStreamName: ci-events
#           ExtendedS3DestinationConfiguration:
#             BucketARN: arn:aws:s3:::ci-bucket
#             BufferingHints: {SizeInMBs: 1, IntervalInSeconds: 0}
#             CompressionFormat: GZIP
#             ProcessingConfiguration: {Enabled: true, Processors: [{Type: AppendDelimiterToRecord}]}
#     and skip this step.)
log "creating delivery stream $STREAM"
firehose create-delivery-stream --delivery-stream-name "$STREAM" --delivery-stream-type DirectPut \
    --extended-s3-destination-configuration '{
        "BucketARN": "arn:aws:s3:::'"$BUCKET"'",
        "RoleARN": "arn:aws:iam::000000000000:role/firehose",
        "BufferingHints": {"SizeInMBs": 1, "IntervalInSeconds": 0},
        "CompressionFormat": "GZIP",
        "ProcessingConfiguration": {"Enabled": true, "Processors": [{"Type": "AppendDelimiterToRecord"}]}
    }' >/dev/null || fail "create-delivery-stream failed"
# A new stream is CREATING until it is ACTIVE (immediately with firehose-local's default settings).
for _ in $(seq 100); do # at most about 10 s
    status=$(firehose describe-delivery-stream --delivery-stream-name "$STREAM" \
        --query DeliveryStreamDescription.DeliveryStreamStatus) || fail "describe-delivery-stream failed"
    [ "$status" = ACTIVE ] && break
    sleep 0.1
done
[ "$status" = ACTIVE ] || fail "stream is still $status"

# 3. Put two records.
log "putting records"
failed=$(firehose put-record-batch --delivery-stream-name "$STREAM" \
    --records '[{"Data": "{\"n\": 1}"}, {"Data": "{\"n\": 2}"}]' \
    ${binary_format[@]+"${binary_format[@]}"} --query FailedPutCount) || fail "put-record-batch failed"
[ "$failed" = 0 ] || fail "FailedPutCount is $failed"

# 4. Wait for the object: answers 200 {"objects": N} as soon as the stream has written one object,
#    408 after 30 s.
log "waiting for the object"
answer=$(curl -s --max-time 40 -w '\n%{http_code}' "$endpoint/_local/wait?stream=$STREAM&objects=1&timeout=30")
[ "${answer##*$'\n'}" = 200 ] || fail "no object within 30 s: ${answer%$'\n'*}"

# 5. Find the object and compare its (decompressed) content.
listing=$("$FIREHOSE_LOCAL_BIN" objects --data-dir "$data" --stream "$STREAM") || fail "objects failed"
[ "$(printf '%s\n' "$listing" | wc -l)" -eq 1 ] || fail "expected one object, got: $listing"
IFS=$'\t' read -r bucket key size time records <<<"$listing"
log "object $bucket/$key ($size bytes, written $time, $records records)"
[ "$bucket" = "$BUCKET" ] || fail "object is in bucket $bucket"
[ "$records" = 2 ] || fail "object holds $records records, expected 2"
"$FIREHOSE_LOCAL_BIN" cat --data-dir "$data" --bucket "$bucket" "$key" >"$work/actual" || fail "cat failed"
printf '{"n": 1}\n{"n": 2}\n' >"$work/expected"
cmp -s "$work/expected" "$work/actual" || fail "unexpected content: $(cat "$work/actual")"

# 6. Stop: SIGTERM delivers what is still buffered, then the server exits 0.
log "stopping"
kill -TERM "$server_pid"
for _ in $(seq 300); do # at most 30 s
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
kill -0 "$server_pid" 2>/dev/null && fail "firehose-local did not stop within 30 s of SIGTERM"
exit_code=0
wait "$server_pid" || exit_code=$?
server_pid=
[ "$exit_code" = 0 ] || fail "firehose-local exited with $exit_code"
log "passed"
