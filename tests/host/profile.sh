#!/bin/bash
# The CPU profile as the shipped configuration runs it: the agent drops root
# for the smblat user, the sampled program is root's (in a directory only
# root may enter) and built -O2 -fomit-frame-pointer (tests/profprog.c:
# main -> hot_a | hot_b -> work -> read(2), hot_a three times as long as
# hot_b, each timing its own CPU). The samples of the program:
#  1. --folded, the rate from the ini (frequency=): hot_a's and hot_b's
#     within 5 % of the ratio of the CPU time they took, the user frames
#     main -> hot_a/hot_b -> work joined with the kernel's (read_zero ...)
#     where the sample was in the kernel;
#  2. the journal's counted-stack entries (FUNCTION=PROFILE), the rate from
#     --profile=HZ: the same; and --svg draws them (main -> hot_a there).
# /etc (the smblat user, from units/smblat.sysusers) is an overlay in a mount
# namespace of the test's own: the machine is untouched.
if [ -z "${SMBLAT_PROFILE_NS:-}" ]; then
	export SMBLAT_PROFILE_NS=1
	exec unshare --mount --propagation private "$0" "$@"
fi
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

trap 'cleanup_ns' EXIT
cleanup_ns() {
	[ -z "$AGENT_PID" ] || kill "$AGENT_PID" 2>/dev/null || true
	[ -z "${PROG_PID:-}" ] || kill "$PROG_PID" 2>/dev/null || true
	rm -rf "${SVGDIR:-}"
	umount /etc 2>/dev/null || true
	umount "$TMP/ov" 2>/dev/null || true
	cleanup
}
journald_ensure
chmod 0700 "$TMP"
shipped_user

prog="$TMP/profprog-$$"
install -m 0755 "$BUILD_ROOT/tests/profprog" "$prog"
comm=$(basename "$prog" | cut -c1-15)
# 999 Hz: some 4,000 samples of the program's 4 s, a ratio to 5 % with room
printf '[agent]\nuser = smblat\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n[profile]\nenabled = yes\nfrequency = 999\n' >"$TMP/conf"
printf '[agent]\nuser = smblat\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n' >"$TMP/conf2"

dropped() {
	local uid
	uid=$(awk '/^Uid:/ {print $2}' /proc/"$AGENT_PID"/status)
	[ "$uid" = "$(id -u smblat)" ] || fail "agent runs as uid $uid, not smblat"
}

# prog_start: the program, waiting for a line on fd 3 (the agent attaches meanwhile)
prog_start() {
	rm -f "$TMP/in"
	mkfifo "$TMP/in"
	"$prog" 4 wait <"$TMP/in" >"$TMP/prog.out" &
	PROG_PID=$!
	exec 3>"$TMP/in"
}

# run_prog: 4 s of the program's CPU, to its end; its own times in prog.out
run_prog() {
	echo go >&3
	exec 3>&-
	wait "$PROG_PID" || fail "profprog failed"
	PROG_PID=
	head -1 "$TMP/prog.out" | grep -q '^hot_a [0-9]* hot_b [0-9]*$' || fail "profprog said: $(cat "$TMP/prog.out")"
}

# check WHAT FILE: its "FOLDED COUNT" lines, the ratio and the joined frames
check() {
	python3 - "$1" "$2" "$comm" "$TMP/prog.out" <<'PY'
import re, sys
what, lines, comm, progout = sys.argv[1:]
_, a_ns, _, b_ns = open(progout).readline().split()
want = int(a_ns) / int(b_ns)
a = b = other = 0
joined = False
for line in open(lines):
    stack, _, n = line.rstrip("\n").rpartition(" ")
    if not stack.startswith(comm + ";"):
        continue
    n = int(n)
    if re.search(r";main;hot_a;work(;|$)", stack):
        a += n
    elif re.search(r";main;hot_b;work(;|$)", stack):
        b += n
    else:
        other += n
    if re.search(r";main;hot_[ab];work;read;.*;(ksys_read|vfs_read|read_zero)(;|$)", stack):
        joined = True
print(f"{what}: hot_a {a}, hot_b {b}, other {other} samples; sampled ratio {a / max(b, 1):.3f}, "
      f"CPU time ratio {want:.3f}")
if abs(want - 3) > 0.15:
    sys.exit(f"FAIL: {what}: the program's own ratio {want:.3f} is not 3:1")
if a + b < 1000:
    sys.exit(f"FAIL: {what}: {a + b} samples of hot_a and hot_b, 1000 at least wanted")
if other > (a + b) / 20:
    sys.exit(f"FAIL: {what}: {other} samples without main -> hot_a|hot_b -> work")
if abs(a / b - want) > want * 0.05:
    sys.exit(f"FAIL: {what}: sampled ratio {a / b:.3f} not within 5 % of {want:.3f}")
if not joined:
    sys.exit(f"FAIL: {what}: no sample in the kernel joined with main;hot_a|hot_b;work;read")
PY
}

# 1. --folded, frequency= of the ini
prog_start
agent_start -c "$TMP/conf" --folded -p "$PROG_PID"
dropped
grep -q "PROFILE: 999 Hz" "$TMP/agent.err" || fail "no profile attached: $(cat "$TMP/agent.err")"
run_prog
agent_stop
grep "^$comm;" "$TMP/agent.out" | sort -t' ' -k2 -n | tail -5
check "folded" "$TMP/agent.out" || exit 1

# 2. the journal's counted-stack entries, --profile=HZ
prog_start
SVGDIR=$(mktemp -d /tmp/smblat-profile-svg.XXXXXX)
chown smblat "$SVGDIR"
agent_start -c "$TMP/conf2" --profile=999 -p "$PROG_PID" --svg "$SVGDIR/p.svg"
dropped
run_prog
agent_stop
journal_json FUNCTION=PROFILE | python3 -c '
import json, sys
for l in sys.stdin:
    e = json.loads(l)
    if "STACK_FOLDED" in e and "COUNT" in e:
        print(e["STACK_FOLDED"], e["COUNT"])
' >"$TMP/journal.folded"
[ -s "$TMP/journal.folded" ] || fail "no PROFILE entries in the journal: $(cat "$TMP/agent.err")"
check "journal" "$TMP/journal.folded" || exit 1
grep -q '>hot_a (' "$SVGDIR/p.svg" && grep -q '>hot_b (' "$SVGDIR/p.svg" && grep -q '>main (' "$SVGDIR/p.svg" ||
	fail "--svg has no frames main, hot_a, hot_b: $(cat "$TMP/agent.err")"
echo "PASS"
