#!/usr/bin/env bash
# Stops what start-rgw.sh DIR started (SIGTERM, then SIGKILL what is left) and removes DIR, or only
# its cluster data with --keep-logs.
dir=$1
for signal in TERM KILL; do
    for pidfile in "$dir"/run/*.pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        # A pid file outlives its process: signal only a Ceph daemon of this cluster.
        case "$(cat "/proc/$pid/comm" 2>/dev/null)" in
            ceph-mon|ceph-osd|radosgw) kill -s "$signal" "$pid" 2>/dev/null ;;
        esac
    done
    [ "$signal" = TERM ] && sleep 2
done
if [ "${2:-}" = --keep-logs ]; then
    rm -rf "$dir"/{mon,osd,rgw}
else
    rm -rf "$dir"
fi
true
