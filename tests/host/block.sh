#!/bin/bash
# The block layer on this kernel: O_DIRECT reads and writes of known sizes on
# a loop device, each request a journal entry with DISK, OP, BYTES, SECTOR;
# a second loop device left out by disks =; a flush, and the write without
# data an fsync sends (Linux 6.5 on); queue time through an
# I/O scheduler; a summary counting every request.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

. "${SOURCE_ROOT:?}/tests/lib-loop.sh"

journald_ensure
loop_new a 16M
traced=$LOOP
loop_new b 16M
other=$LOOP
tname=$(basename "$traced")
oname=$(basename "$other")
echo "traced $traced, filtered out $other"

conf() {
	cat <<CONF
[agent]
threshold = 1s
user =
[smb]
enabled = no
[block]
enabled = yes
threshold = 0
disks = $tname
$1
CONF
}

# entries: "FUNCTION DISK OP BYTES SECTOR LATENCY_US QUEUE_US COMM" of slow-call
# entries the agent $apid wrote since $since (microseconds; pids come back)
entries() {
	journal_json "_PID=$apid" "LAYER=block" "MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250" | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    if int(e["__REALTIME_TIMESTAMP"]) < int(sys.argv[1]):
        continue
    print(e["FUNCTION"], e.get("DISK", "-"), e["OP"], e["BYTES"], e.get("SECTOR", "-"),
          e["LATENCY_US"], e.get("QUEUE_US", "-"), e["COMM"])
' "$since"
}

# A disk that does not exist stops the agent with one line naming it.
conf "" | sed "s/^disks = .*/disks = $tname nosuchdisk$$/" >"$TMP/bad.conf"
rc=0
"$SMBLAT" -c "$TMP/bad.conf" --list-probes >/dev/null 2>"$TMP/bad.err" || rc=$?
cat "$TMP/bad.err"
[ "$rc" -ne 0 ] && grep -q "disks = nosuchdisk$$: no such block device" "$TMP/bad.err" ||
	fail "disks = nosuchdisk$$: exit $rc, no clear message"

since=$(date +%s%6N)
conf "" >"$TMP/smblat.conf"
agent_start -c "$TMP/smblat.conf"
apid=$AGENT_PID
"$SMBLAT" -c "$TMP/smblat.conf" --list-probes 2>/dev/null | tee "$TMP/list" | grep BLOCK_WRITE
grep -Eq "^BLOCK_WRITE +block +block_rq_issue..block_rq_complete +(tp_btf|raw_tp) +attached" "$TMP/list" ||
	fail "--list-probes: BLOCK_WRITE not attached through a tracepoint"
# 4 writes of 64 KiB at sectors 0, 128, 256, 384; 3 reads of 4 KiB at 80, 88, 96.
dd if=/dev/urandom of="$traced" bs=64k count=4 oflag=direct status=none
dd if="$traced" of=/dev/null bs=4k count=3 skip=10 iflag=direct status=none
dd if=/dev/urandom of="$other" bs=64k count=2 oflag=direct status=none
dd if="$other" of=/dev/null bs=4k count=2 iflag=direct status=none
python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_WRONLY); os.fsync(fd)' "$traced"
agent_stop
e=$(entries)
echo "$e"

w=$(echo "$e" | awk -v d="$tname" '$1 == "BLOCK_WRITE" && $2 == d && $4 > 0 {print $5, $4}' | sort -n | tr '\n' ' ')
[ "$w" = "0 65536 128 65536 256 65536 384 65536 " ] ||
	fail "BLOCK_WRITE on $tname: sector/bytes \"$w\", expected the 4 writes of dd"
r=$(echo "$e" | awk -v d="$tname" '$1 == "BLOCK_READ" && $2 == d {print $5, $4}' | sort -n | tr '\n' ' ')
for x in "80 4096" "88 4096" "96 4096"; do
	case " $r" in *" $x "*) ;; *) fail "BLOCK_READ on $tname: no read at sector/bytes $x in \"$r\"" ;; esac
done
echo "$e" | awk '$1 == "BLOCK_WRITE" || $1 == "BLOCK_READ"' | awk '$3 != substr($1, 7) {exit 1}' ||
	fail "OP does not match FUNCTION"
echo "$e" | awk -v d="$oname" '$2 == d' | grep -q . && fail "disks = $tname, yet $oname was logged"
echo "$e" | awk '$7 != "-"' | grep -q . && fail "QUEUE_US without queue_time = yes"
if grep -q "write back" "/sys/block/$tname/queue/write_cache"; then
	echo "$e" | awk -v d="$tname" '$1 == "BLOCK_FLUSH" && $2 == d && $3 == "FLUSH"' | grep -q . ||
		fail "fsync on $tname (write back cache) logged no BLOCK_FLUSH"
	# the fsync's own request, a write without data the driver never sees (Linux 6.5 on)
	if ! grep -q "no block_io_start" "$TMP/agent.err"; then
		echo "$e" | awk -v d="$tname" '$1 == "BLOCK_WRITE" && $2 == d && $4 == 0 && $5 == "-" && $8 == "python3"' |
			grep -q . || fail "fsync on $tname logged no BLOCK_WRITE of 0 bytes by python3"
	fi
fi

s=$(journal_json "_PID=$apid" "FUNCTION=BLOCK_WRITE" "MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac" |
	python3 -c 'import json, sys; print(sum(int(e["COUNT"]) for e in map(json.loads, sys.stdin)
	                                        if int(e["__REALTIME_TIMESTAMP"]) >= int(sys.argv[1])))' "$since")
echo "BLOCK_WRITE summary COUNT=$s"
[ "$s" -ge 4 ] || fail "BLOCK_WRITE summary COUNT=$s, expected at least the 4 writes"

# queue_time = yes: with a scheduler, requests wait between insert and issue.
if grep -q mq-deadline "/sys/block/$tname/queue/scheduler"; then
	echo mq-deadline >"/sys/block/$tname/queue/scheduler"
	since=$(date +%s%6N)
	conf "queue_time = yes" >"$TMP/smblat.conf"
	agent_start -c "$TMP/smblat.conf"
	apid=$AGENT_PID
	dd if=/dev/urandom of="$traced" bs=64k count=2 seek=8 oflag=direct status=none
	agent_stop
	e=$(entries)
	echo "$e"
	q=$(echo "$e" | awk -v d="$tname" '$1 == "BLOCK_WRITE" && $2 == d && ($5 == 1024 || $5 == 1152)')
	[ "$(echo "$q" | grep -c .)" -eq 2 ] || fail "queue_time: expected the 2 writes at sectors 1024 and 1152"
	echo "$q" | awk '$7 == "-" || $7 > $6 {exit 1}' ||
		fail "queue_time: QUEUE_US missing or above LATENCY_US"
	# queued by dd itself, whichever task issued them later (kworkers do, on 6.1)
	echo "$q" | awk '$8 != "dd" {exit 1}' || fail "queue_time: requests not attributed to dd, which queued them"
fi
echo ok
