# Real smblat entries of every kind this kernel can produce, for the tests
# of the shippers in deploy/ (ELK, rsyslog, journal-remote). Needs a private
# journald (lib-journald.sh) and lib-host.sh.
#
#   entries_make [LOOP_IMG_DIR]   runs the agent over a small workload
#
# Sets ENTRIES_LABEL, the prefix of the FUNCTION names of this run's [probe]
# sections (the block layer's are BLOCK_*), and ENTRIES_AGENT_PID, the agent's
# _PID: its slow calls of a user function with arguments, a failed call
# (ERRNO) and user stacks (STACK, STACK_FOLDED), of a syscall, of block
# requests on a loop device (DISK, OP, BYTES, SECTOR, QUEUE_US through a
# scheduler where the device has one), summaries of each, a loss entry (the
# rate limit) and status entries, among them a reload's (one probe added,
# the flood's removed); the counted stacks of the user function, and the
# syscalls layer's summaries of the syscall program (ERRORS, ERRNOS); with
# off-CPU time on, the calls' OFFCPU_US and ONCPU_US and the summary's
# off-CPU stacks (OFFCPU_CLASS).

ENTRIES_LOOP=
entries_cleanup() {
	[ -z "$ENTRIES_LOOP" ] || losetup -d "$ENTRIES_LOOP" 2>/dev/null || true
}

entries_make() {
	local label="SHIP_$$" dev slow="$TMP/shipslow" sys="$TMP/shipsys" flood="$TMP/shipflood" n
	ENTRIES_LABEL=$label
	cp "$BUILD_ROOT/tests/slowprog" "$slow"
	cp "$BUILD_ROOT/tests/sysprog" "$sys"
	cp "$BUILD_ROOT/tests/floodprog" "$flood"
	truncate -s 16M "$TMP/ship.img"
	ENTRIES_LOOP=$(losetup -f --show "$TMP/ship.img") || fail "losetup: cannot create a loop device"
	dev=$(basename "$ENTRIES_LOOP")
	! grep -q mq-deadline "/sys/block/$dev/queue/scheduler" || echo mq-deadline >"/sys/block/$dev/queue/scheduler"
	cat >"$TMP/ship.conf" <<CONF
[agent]
user =
threshold = 1s
rate_limit = 100
offcpu = yes
[smb]
enabled = no
[journal]
lost_interval = 1s
[histogram]
interval = 1h
[block]
enabled = yes
threshold = 0
disks = $dev
queue_time = yes
[syscalls]
enabled = yes
select = comm:shipsys
[probe ${label}_CALL]
target = $slow:slow_call
threshold = 10ms
args = 2
errors = yes
user_stack = yes
stacks = yes
[probe ${label}_SLEEP]
target = syscall:nanosleep
threshold = 10ms
args = 2
[probe ${label}_FLOOD]
target = $flood:fast_call
threshold = 0
kernel_stack = no
CONF
	agent_start -c "$TMP/ship.conf"
	ENTRIES_AGENT_PID=$AGENT_PID
	"$slow" 30 13 2 >/dev/null
	"$sys" s:25 o:/nonexistent/shipsys >/dev/null
	dd if=/dev/urandom of="$ENTRIES_LOOP" bs=64k count=2 oflag=direct status=none
	dd if="$ENTRIES_LOOP" of=/dev/null bs=4k count=2 skip=10 iflag=direct status=none
	python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_WRONLY); os.fsync(fd)' "$ENTRIES_LOOP"
	# past the rate limit's burst: a loss entry (SUPPRESSED)
	n=$("$flood" 2000)
	[ "$n" -eq 2000 ] || fail "floodprog made $n calls"
	sed -i "s/^\[probe ${label}_FLOOD\]\$/[probe ${label}_AGAIN]/" "$TMP/ship.conf"
	kill -HUP "$AGENT_PID"
	for _ in $(seq 300); do
		grep -q "reload: applied: 1 probe added, 1 removed" "$TMP/agent.err" && break
		sleep 0.1
	done
	grep -q "reload: applied: 1 probe added, 1 removed" "$TMP/agent.err" ||
		{ cat "$TMP/agent.err" >&2; fail "the reload was not applied"; }
	agent_stop
	journalctl --sync
}

# entries_smb: the smb and smb2 layers' fields, which need cifs.ko, as the
# journal sink formats them (tests/smbentries.c): FUNCTION names
# ${ENTRIES_LABEL}_UNLINK and ${ENTRIES_LABEL}_CREATE.
entries_smb() {
	"$BUILD_ROOT/tests/smbentries" "$ENTRIES_LABEL" || fail "smbentries failed"
	journalctl --sync
}
