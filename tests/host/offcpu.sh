#!/bin/bash
# Off-CPU time of slow calls (offcpu = yes), on the shipped configuration
# (the agent drops to the smblat user): tests/waitprog's wait_then_burn
# waits 50 ms on a futex another thread wakes, then burns 10 ms of CPU.
#  1. traced as a user function (uprobe): OFFCPU_US about 50 ms (within
#     20 %), ONCPU_US + OFFCPU_US = LATENCY_US;
#     the summary's top off-CPU stack of it is the futex wait, class futex;
#  2. its futex wait traced as a syscall (syscall:futex): the same split,
#     with nearly all of it off-CPU.
if [ -z "${SMBLAT_OFFCPU_NS:-}" ]; then
	export SMBLAT_OFFCPU_NS=1
	exec unshare --mount --propagation private "$0" "$@"
fi
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

trap 'cleanup_ns' EXIT
cleanup_ns() {
	[ -z "$AGENT_PID" ] || kill "$AGENT_PID" 2>/dev/null || true
	umount /etc 2>/dev/null || true
	umount "$TMP/ov" 2>/dev/null || true
	cleanup
}
journald_ensure
chmod 0755 "$TMP"
shipped_user

prog="$TMP/waitprog$$"
install -m 0755 "$BUILD_ROOT/tests/waitprog" "$prog"
comm=$(basename "$prog" | cut -c1-15)

wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}

# check LABEL MIN_ON_US MAX_ON_US: three entries of LABEL by the program, each split right
check() {
	local label=$1
	has3() { [ "$(journal_json FUNCTION="$label" COMM="$comm" | wc -l)" -ge 3 ]; }
	wait_for 30 has3 || fail "$label: no 3 entries: $(cat "$TMP/agent.err")"
	journal_json FUNCTION="$label" COMM="$comm" | python3 -c '
import json, sys
label, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = 0
for line in sys.stdin:
    j = json.loads(line)
    lat, off, on = (int(j.get(k, -1)) for k in ("LATENCY_US", "OFFCPU_US", "ONCPU_US"))
    print(label, "LATENCY_US", lat, "OFFCPU_US", off, "ONCPU_US", on)
    if off < 0 or on < 0:
        sys.exit("FAIL: %s: no OFFCPU_US/ONCPU_US" % label)
    if not 40000 <= off <= 60000:
        sys.exit("FAIL: %s: OFFCPU_US %d not 50 ms within 20 %%" % (label, off))
    if abs(on + off - lat) > 1:
        sys.exit("FAIL: %s: ONCPU_US + OFFCPU_US = %d, LATENCY_US %d" % (label, on + off, lat))
    if not lo <= on <= hi:
        sys.exit("FAIL: %s: ONCPU_US %d not in %d..%d" % (label, on, lo, hi))
    n += 1
if n < 3:
    sys.exit("FAIL: %s: %d entries" % (label, n))
' "$label" "$2" "$3" || exit 1
}

dropped() {
	local uid
	uid=$(awk '/^Uid:/ {print $2}' /proc/"$AGENT_PID"/status)
	[ "$uid" = "$(id -u smblat)" ] || fail "agent runs as uid $uid, not smblat"
}

# 1. the function: 10 ms on a CPU (burning), the rest waiting
printf '[agent]\nuser = smblat\noffcpu = yes\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n[probe WAIT_%s]\ntarget = %s:wait_then_burn\nthreshold = 30ms\nkernel_stack = no\n' \
	$$ "$prog" >"$TMP/conf"
agent_start -c "$TMP/conf"
dropped
"$prog" 3 >"$TMP/prog.out"
check "WAIT_$$" 8000 20000
# its off-CPU stacks in the summary: the most time in the futex wait
mid=$(grep -rh '^#define SMBLAT_MID_OFFCPU ' "$SOURCE_ROOT/agent" | sed -n 's/.*"\([0-9a-f]*\)".*/\1/p' | head -1)
[ -n "$mid" ] || fail "no SMBLAT_MID_OFFCPU under agent/"
kill -USR1 "$AGENT_PID"
has_stacks() { [ -n "$(journal_json MESSAGE_ID="$mid" FUNCTION="WAIT_$$" STACK_RANK=1)" ]; }
wait_for 30 has_stacks || fail "no off-CPU stack of WAIT_$$ after SIGUSR1: $(cat "$TMP/agent.err")"
top=$(journal_json MESSAGE_ID="$mid" FUNCTION="WAIT_$$" STACK_RANK=1 | head -1)
echo "top off-CPU stack: $(echo "$top" | field MESSAGE) $(echo "$top" | field STACK_FOLDED)"
[ "$(echo "$top" | field OFFCPU_CLASS)" = futex ] || fail "top off-CPU stack not of class futex"
echo "$top" | field STACK_FOLDED | grep -q 'futex_wait' || fail "top off-CPU stack has no futex_wait frame"
us=$(echo "$top" | field OFFCPU_US)
[ "$us" -ge 120000 ] || fail "top off-CPU stack took $us us of the 3 x 50 ms waits"
agent_stop

# 2. the futex wait as a syscall, switched on from the command line
printf '[agent]\nuser = smblat\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n' >"$TMP/conf2"
agent_start -c "$TMP/conf2" --offcpu -m 30 -f syscall:futex
dropped
"$prog" 3 >"$TMP/prog.out"
check "syscall:futex" 0 5000
agent_stop
echo "ok"
