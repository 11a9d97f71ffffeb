#!/usr/bin/env bash
# Starts a Ceph RADOS Gateway (S3) on 127.0.0.1 for the end-to-end suite, from Debian's packages
# (radosgw, ceph-mon, ceph-osd, ceph-common; Ceph 16 "Pacific" in bookworm): a single-node cluster of
# one monitor and one OSD keeping its objects in memory (memstore), no manager, no authentication
# inside the cluster, then the gateway and an S3 user. Pacific's gateway has no standalone backend,
# so the monitor and the OSD are needed. Everything lives under DIR; stop-rgw.sh DIR stops it.
#
#   start-rgw.sh DIR RGW_PORT MON_PORT ACCESS_KEY SECRET_KEY
#
# Prints nothing on success; on failure the logs are in DIR/log.
set -euo pipefail
dir=$1 rgw_port=$2 mon_port=$3 access_key=$4 secret_key=$5
rm -rf "$dir"
mkdir -p "$dir"/{mon,osd,log,run,rgw}
# Whatever started is stopped if a step fails (the logs stay, for the caller to show).
trap 'status=$?; [ $status -eq 0 ] || bash "$(dirname "$0")/stop-rgw.sh" "$dir" --keep-logs; exit $status' EXIT
fsid=$(cat /proc/sys/kernel/random/uuid)
export CEPH_CONF="$dir/ceph.conf"
cat > "$CEPH_CONF" <<CONF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
# The gateway insists on "secure" mode toward the monitor unless crc is offered: without this line
# it waits 300 s and fails ("authenticate timed out") under auth none.
ms mon client mode = crc secure
client mount timeout = 30
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
# A CI disk may be fuller than a monitor likes; this one holds nothing that matters.
mon data avail crit = 0
mon data avail warn = 0
osd crush chooseleaf type = 0
run dir = $dir/run
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
pid file = $dir/run/\$name.pid
mon data = $dir/mon
osd data = $dir/osd
osd objectstore = memstore
memstore device bytes = 1073741824
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $dir/rgw
CONF
monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null
ceph-mon --mkfs -i a --monmap "$dir/monmap"
ceph-mon -i a
osd_uuid=$(cat /proc/sys/kernel/random/uuid)
osd_id=$(ceph osd new "$osd_uuid")
ceph-osd -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" >"$dir/log/osd-mkfs.log" 2>&1
ceph-osd -i "$osd_id" >>"$dir/log/osd-start.log" 2>&1
for _ in $(seq 120); do
    ceph osd stat 2>/dev/null | grep -q '1 up' && break
    sleep 0.5
done
ceph osd stat | grep -q '1 up' || { echo "the OSD did not come up" >&2; exit 1; }
radosgw -n client.rgw
for _ in $(seq 240); do
    (exec 3<>"/dev/tcp/127.0.0.1/$rgw_port") 2>/dev/null && break
    sleep 0.5
done
(exec 3<>"/dev/tcp/127.0.0.1/$rgw_port") 2>/dev/null || { echo "radosgw did not listen on $rgw_port" >&2; exit 1; }
radosgw-admin user create --uid=firehose-local --display-name=firehose-local \
    --access-key="$access_key" --secret="$secret_key" >/dev/null
