#!/usr/bin/env bash
# Stops what start-rgw.sh DIR started (SIGTERM, then SIGKILL what is left) and removes DIR.
dir=$1
for signal in TERM KILL; do
    for pidfile in "$dir"/run/*.pid; do
        [ -f "$pidfile" ] && kill -s "$signal" "$(cat "$pidfile")" 2>/dev/null
    done
    [ "$signal" = TERM ] && sleep 2
done
rm -rf "$dir"
true
