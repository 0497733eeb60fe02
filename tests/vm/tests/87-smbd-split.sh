#!/bin/bash
# smbd's time split on a real kernel, against an smbd of this test's own
# (port 4487) with a share on tmpfs and one on a dm-delay device: the
# phases of each session add up to its wall time; a 20 ms netem delay
# shows up in waiting for events; a slowed disk in running requests (the
# loop's waits for the reads it handed to worker threads) and in disk read
# time. A session's smbd killed gives its SMBD_EXIT entry.
. "$VM_DIR/lib.sh"

port=4487   # its own: 64-smb-events leaves the rig's smbd on 445 and 4455
S=$PWD/samba
mkdir -p "$S"/{fast,run,lock,state,cache,private,log} /srv/slow
modprobe dm-delay || fail "no dm-delay module"
truncate -s 64M "$S/slow.img"
loop=$(losetup -f --show "$S/slow.img")
sectors=$(blockdev --getsz "$loop")
# 40 ms on every read and write of the slow share's disk
# no udev here: dmsetup makes the node itself
dmsetup create --noudevsync smblat-slow --table "0 $sectors delay $loop 0 40" || fail "dmsetup create"
dmsetup mknodes smblat-slow
[ -b /dev/mapper/smblat-slow ] || fail "no /dev/mapper/smblat-slow"
cleanup_slow() {
	[ -z "${SMBD_PID:-}" ] || kill "$SMBD_PID" 2>/dev/null || true
	umount /srv/slow 2>/dev/null || true
	dmsetup remove --noudevsync smblat-slow 2>/dev/null || true
	losetup -d "$loop" 2>/dev/null || true
	netem_off
}
trap 'cleanup_slow; _vm_exit' EXIT
# no discard: 5.10's dm-delay passes discards on with granularity 0, and
# the kernel warns (a kernel report fails the test)
mkfs.ext4 -q -E nodiscard /dev/mapper/smblat-slow
mount /dev/mapper/smblat-slow /srv/slow
cat >"$S/smb.conf" <<CONF
[global]
server role = standalone server
interfaces = lo
bind interfaces only = yes
smb ports = $port
pid directory = $S/run
lock directory = $S/lock
state directory = $S/state
cache directory = $S/cache
private dir = $S/private
ncalrpc dir = $S/run/ncalrpc
log file = $S/log/log.%m
passdb backend = tdbsam:$S/private/passdb.tdb
map to guest = Bad User
guest account = nobody
load printers = no
disable spoolss = yes
printcap name = /dev/null
rpc start on demand helpers = no
[fast]
path = $S/fast
guest ok = yes
read only = no
force user = root
[slow]
path = /srv/slow
guest ok = yes
read only = no
force user = root
CONF
for i in $(seq 20); do
	head -c 8192 /dev/urandom >"$S/fast/f$i"
	cp "$S/fast/f$i" "/srv/slow/f$i"
done
sync
setsid smbd -F --no-process-group -s "$S/smb.conf" </dev/null >"$LOG_DIR/smbd.out" 2>&1 &
SMBD_PID=$!
for _ in $(seq 150); do
	timeout 20 smbclient "//127.0.0.1/fast" -p $port -N -c ls >/dev/null 2>&1 && break
	sleep 0.2
done

cat >conf <<CONF
[agent]
user =
kernel_stack = no
[histogram]
interval = 0
[smb]
enabled = no
[smbd]
enabled = yes
time_split = yes
CONF
agent_start -c conf

# session SHARE: one smbclient session reading the 20 files; prints its
# SMBD_TIME_SPLIT entry, written at the summary SIGUSR1 asks for after it
session() {
	local before child e
	journal_mark
	before=$(pgrep -P "$SMBD_PID" | sort)
	timeout 600 smbclient "//127.0.0.1/$1" -p $port -N \
		-c "$(for i in $(seq 20); do printf 'get f%s /dev/null; ' "$i"; done)" >"$LOG_DIR/client-$1.log" 2>&1 ||
		fail "smbclient on $1: $(tail -3 "$LOG_DIR/client-$1.log")"
	e=$(journal_wait FUNCTION=SMBD_EXIT --timeout 60 | tail -1)
	child=$(journal_field "$e" PID)
	kill -USR1 "$AGENT_PID"
	e=$(journal_wait FUNCTION=SMBD_TIME_SPLIT PID="$child" --timeout 60 | tail -1)
	log "$1: $(journal_field "$e" MESSAGE)"
	echo "$e"
}

phases_sum() {
	jq -r '[.WAIT_US, .RECV_US, .PARSE_US, .RUN_US, .SEND_US, .CTDB_US, .OTHER_US] | map(tonumber) | add' <<<"$1"
}

check_sum() {
	local sum wall
	sum=$(phases_sum "$1")
	wall=$(journal_field "$1" WALL_US)
	log "phases $sum us, wall $wall us"
	assert_ge "$wall" 1 "WALL_US"
	# within 5 %
	[ $((100 * (sum > wall ? sum - wall : wall - sum))) -le $((5 * wall)) ] ||
		fail "phases $sum us are not the wall time $wall us within 5 %"
}

per_request() {
	echo $(($(journal_field "$1" "$2") / $(journal_field "$1" REQUESTS)))
}

base=$(session fast)
check_sum "$base"
assert_ge "$(journal_field "$base" REQUESTS)" 40 "REQUESTS"

netem_on 20
delayed=$(session fast)
netem_off
check_sum "$delayed"
w0=$(per_request "$base" WAIT_US)
w1=$(per_request "$delayed" WAIT_US)
log "waiting per request: $w0 us, with 20 ms netem $w1 us"
# the next request comes a round trip (2 x 20 ms) after the reply
assert_ge "$w1" $((w0 + 20000)) "WAIT_US per request under netem"

echo 3 >/proc/sys/vm/drop_caches
slow=$(session slow)
check_sum "$slow"
r0=$(journal_field "$base" RUN_US)
r1=$(journal_field "$slow" RUN_US)
i0=$(journal_field "$base" RUN_IO_US)
i1=$(journal_field "$slow" RUN_IO_US)
d0=$(journal_field "$base" DISK_READ_US)
d1=$(journal_field "$slow" DISK_READ_US)
log "running requests: $r0 us (disk I/O $i0 us), on the slowed disk $r1 us ($i1 us); disk read $d0 us, on the slowed disk $d1 us"
assert_ge "$d1" $((d0 + 200000)) "DISK_READ_US on the slowed disk"
# smbd reads file data in pthreadpool workers while the loop waits for
# their completion: that wait is the request's, not waiting for events
assert_ge "$i1" $((i0 + 200000)) "RUN_IO_US on the slowed disk"
assert_ge "$r1" $((r0 + 200000)) "RUN_US on the slowed disk"
assert_ge "$r1" "$i1" "RUN_US (RUN_IO_US is a part of it)"

# a session's smbd killed: its exit entry, with smbd's reason
journal_mark
mkfifo hold
before=$(pgrep -P "$SMBD_PID" | sort)
smbclient "//127.0.0.1/fast" -p $port -N <hold >/dev/null 2>&1 &
cpid=$!
exec 4>hold
victim=
for _ in $(seq 300); do
	# the guest has no /dev/fd: no process substitution
	for p in $(pgrep -P "$SMBD_PID"); do
		grep -qx "$p" <<<"$before" || { victim=$p; break; }
	done
	[ -n "$victim" ] && break
	sleep 0.2
done
[ -n "$victim" ] || fail "no smbd for the held session"
kill -TERM "$victim"
exec 4>&-
wait "$cpid" || true
e=$(journal_wait FUNCTION=SMBD_EXIT PID="$victim" --timeout 60 | tail -1)
log "killed: $(journal_field "$e" MESSAGE)"
assert_eq "$(journal_field "$e" SMBD_EXIT_REASON)" "termination signal" "SMBD_EXIT_REASON"
[[ "$(journal_field "$e" SMB_CLIENT)" == 127.0.0.1:* ]] || fail "SMB_CLIENT: $(journal_field "$e" SMB_CLIENT)"
agent_stop
