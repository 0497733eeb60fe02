#!/bin/bash
# Off-CPU time of smbd on a slow disk, on the shipped configuration (the
# agent drops to the smblat user): the share is an ext4 file system on a
# loop device whose reads the block cgroup throttles to 1 MiB/s, smbd runs
# in that cgroup, and a client reads files the page cache does not hold.
# smbd's reads (syscall:pread64, comm smbd) are slow calls spent nearly
# all off-CPU, and the summary's top off-CPU stack of them is of class io.
if [ -z "${SMBLAT_OFFCPU_IO_NS:-}" ]; then
	export SMBLAT_OFFCPU_IO_NS=1
	exec unshare --mount --propagation private "$0" "$@"
fi
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

LOOP= CG=
trap 'io_cleanup' EXIT
io_cleanup() {
	[ -z "$AGENT_PID" ] || kill "$AGENT_PID" 2>/dev/null || true
	smbd_stop
	umount "$TMP/samba/share" 2>/dev/null || true
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
	[ -z "$CG" ] || rmdir "$CG" 2>/dev/null || true
	umount /etc 2>/dev/null || true
	umount "$TMP/ov" 2>/dev/null || true
	cleanup
}

# the throttle: cgroup v1's blkio controller, else v2's io.max
throttle_setup() {
	local dev=$1 v1=/sys/fs/cgroup/blkio v2=/sys/fs/cgroup
	if [ -w "$v1/blkio.throttle.read_bps_device" ]; then
		CG=$v1/smblat-offcpu-io$$
		mkdir "$CG" && echo "$dev 1048576" >"$CG/blkio.throttle.read_bps_device" && return 0
	elif grep -qw io "$v2/cgroup.controllers" 2>/dev/null; then
		CG=$v2/smblat-offcpu-io$$
		echo +io >"$v2/cgroup.subtree_control" 2>/dev/null || true
		mkdir "$CG" && echo "$dev rbps=1048576" >"$CG/io.max" && return 0
	fi
	return 1
}

journald_ensure
command -v mkfs.ext4 >/dev/null || fail "mkfs.ext4 not installed"
chmod 0755 "$TMP"
shipped_user

truncate -s 64M "$TMP/disk.img"
mkfs.ext4 -q -F "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || { echo "SKIP: no loop device"; exit 77; }
mkdir -p "$TMP/samba/share"
mount "$LOOP" "$TMP/samba/share"
for i in 1 2 3; do head -c 2M /dev/urandom >"$TMP/samba/share/f$i"; done
chmod -R a+rwX "$TMP/samba/share"
# out of the page cache: what smbd reads comes from the device
umount "$TMP/samba/share"
throttle_setup "$(lsblk -ndo MAJ:MIN "$LOOP" | tr -d ' ')" || { echo "SKIP: no block throttle (blkio or io cgroup)"; exit 77; }
mount "$LOOP" "$TMP/samba/share"

port=$((20000 + $$ % 20000))
smbd_start "$TMP/samba" "$port"
# smbd's connection processes are forked after this, inside the cgroup
echo "$SMBD_PID" >"$CG/cgroup.procs"

printf '[agent]\nuser = smblat\ncomm = smbd\noffcpu = yes\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n' >"$TMP/conf"
agent_start -c "$TMP/conf" -m 100 -f syscall:pread64
uid=$(awk '/^Uid:/ {print $2}' /proc/"$AGENT_PID"/status)
[ "$uid" = "$(id -u smblat)" ] || fail "agent runs as uid $uid, not smblat"

timeout 120 smbclient "//127.0.0.1/share" -p "$port" -N -c "lcd $TMP; get f1; get f2; get f3" >"$TMP/client.out" 2>&1 ||
	fail "smbclient: $(cat "$TMP/client.out")"

slow() { journal_json FUNCTION=syscall:pread64 COMM=smbd _PID="$AGENT_PID"; }
for _ in $(seq 100); do [ -n "$(slow)" ] && break; sleep 0.1; done
[ -n "$(slow)" ] || fail "no slow pread64 of smbd: $(cat "$TMP/agent.err")"
slow | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    j = json.loads(line)
    lat, off = int(j["LATENCY_US"]), int(j.get("OFFCPU_US", -1))
    print("pread64 LATENCY_US", lat, "OFFCPU_US", off, "ONCPU_US", j.get("ONCPU_US"))
    if off < 0.8 * lat:
        sys.exit("FAIL: a read of the throttled disk %d us, only %d us of it off-CPU" % (lat, off))
    n += 1
print(n, "slow reads")
' || exit 1

mid=$(grep -rh '^#define SMBLAT_MID_OFFCPU ' "$SOURCE_ROOT/agent" | sed -n 's/.*"\([0-9a-f]*\)".*/\1/p' | head -1)
[ -n "$mid" ] || fail "no SMBLAT_MID_OFFCPU under agent/"
kill -USR1 "$AGENT_PID"
top() { journal_json MESSAGE_ID="$mid" FUNCTION=syscall:pread64 STACK_RANK=1 _PID="$AGENT_PID" | head -1; }
for _ in $(seq 100); do [ -n "$(top)" ] && break; sleep 0.1; done
t=$(top)
[ -n "$t" ] || fail "no off-CPU stack of pread64 after SIGUSR1: $(cat "$TMP/agent.err")"
echo "top off-CPU stack: $(field OFFCPU_CLASS <<<"$t") $(field OFFCPU_US <<<"$t") us $(field STACK_FOLDED <<<"$t")"
[ "$(field OFFCPU_CLASS <<<"$t")" = io ] || fail "the top off-CPU stack of smbd's reads is not of class io"
agent_stop
echo "ok"
