#!/bin/bash
# The syscalls layer: every syscall of a deterministic program (a child
# process and a thread included) counted in the kernel equals strace -c
# -f's count per syscall, errors too; the terminal table is strace -c's,
# every errno of a syscall named beside it;
# the journal has one summary per syscall with ERRORS and the top errno;
# pid: selection and processes running before the agent; off unless asked for (enabled = auto does not switch it
# on); a wrong selection is one clear line.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

command -v strace >/dev/null || fail "strace not installed (tests/packages.txt)"
journald_ensure
prog="$TMP/sysmix-$$"
cp "$BUILD_ROOT/tests/sysmix" "$prog"
comm=$(basename "$prog" | cut -c1-15)
printf '[agent]\nuser =\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n' >"$TMP/conf"

# counts FILE: "syscall calls errors" lines of an strace -c style table
counts() {
	python3 -c '
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(\d+)?\s*(\w+)\s*([\w:]+( [\w:]+)*)?\s*$", line)
    if m and m.group(3) != "total":
        print(m.group(3), m.group(1), m.group(2) or 0)
' "$1" | sort
}

# 1. strace -c -f, then smblat on the same program, selected by comm
strace -c -f -o "$TMP/strace.txt" "$prog" >/dev/null
counts "$TMP/strace.txt" | grep -v '^execve ' >"$TMP/strace.counts"
agent_start -c "$TMP/conf" --stdout --syscalls="comm:$comm"
grep -q "syscalls: [0-9]* syscalls\? of comm:$comm accounted" "$TMP/agent.err" || fail "no accounting line"
"$prog" >/dev/null
agent_stop
cat "$TMP/agent.out"
grep -q "^syscalls of comm:$comm over" "$TMP/agent.out" || fail "no table"
grep -qx "% time     seconds  usecs/call     calls    errors syscall" "$TMP/agent.out" || fail "not strace's header"
counts "$TMP/agent.out" >"$TMP/smblat.counts"
# the execve that starts a process is made before it is chosen (by its new comm)
diff -u "$TMP/strace.counts" "$TMP/smblat.counts" || fail "counts differ from strace -c -f (above)"
grep -qE "^openat [0-9]+ 25$" "$TMP/smblat.counts" || fail "openat's 25 failures"
grep -qE "^getuid 15 0$" "$TMP/smblat.counts" || fail "the thread's 15 getuid"
grep -qE "^getpid 10 0$" "$TMP/smblat.counts" || fail "the child's 10 getpid"
# sorted by time, as strace -c
python3 -c '
import re, sys
t = [float(m.group(1)) for m in (re.match(r"^\s*[\d.]+\s+([\d.]+)\s+\d+\s+\d+", l) for l in open(sys.argv[1])) if m]
sys.exit(0 if t[:-1] == sorted(t[:-1], reverse=True) else 1)' "$TMP/agent.out" || fail "table not sorted by time"
# every errno of a syscall, as the journal's ERRNOS has them (issue 25 item
# 21: the table named the top one only)
grep -qE " openat +ENOENT:20 EISDIR:5$" "$TMP/agent.out" || fail "openat's errnos: $(grep " openat " "$TMP/agent.out")"

# 1b. the same counts with per-thread state in the hash kernels without task
# storage (5.10) use
printf '[agent]\nuser =\nthread_state = hash\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n' >"$TMP/hash.conf"
agent_start -c "$TMP/hash.conf" --stdout --syscalls="comm:$comm"
"$prog" >/dev/null
agent_stop
counts "$TMP/agent.out" >"$TMP/hash.counts"
diff -u "$TMP/strace.counts" "$TMP/hash.counts" || fail "thread_state = hash: counts differ from strace -c -f (above)"

# 2. the journal: one summary per syscall, failures by errno
agent_start -c "$TMP/conf" --syscalls="comm:$comm"
"$prog" >/dev/null
pid=$AGENT_PID
agent_stop
e=$(journal_json _PID="$pid" FUNCTION=SYSCALL_OPENAT MESSAGE_ID=37696141c77044bb90174634b6002f95 | tail -1)
[ -n "$e" ] || fail "no SYSCALL_OPENAT summary"
echo "$e"
[ "$(field LAYER <<<"$e")" = syscalls ] || fail "LAYER"
[ "$(field SYSCALL <<<"$e")" = openat ] || fail "SYSCALL"
[ "$(field ERRORS <<<"$e")" = 25 ] || fail "ERRORS $(field ERRORS <<<"$e")"
[ "$(field ERRNOS <<<"$e")" = "ENOENT:20 EISDIR:5" ] || fail "ERRNOS $(field ERRNOS <<<"$e")"
[ "$(field ERRNO_NAME <<<"$e")" = ENOENT ] || fail "ERRNO_NAME"
[ "$(field ERRNO_COUNT <<<"$e")" = 20 ] || fail "ERRNO_COUNT"
[ "$(field COUNT <<<"$e")" = "$(awk '$1 == "openat" {print $2}' "$TMP/strace.counts")" ] || fail "COUNT"
[ -n "$(field HIST <<<"$e")" ] && [ -n "$(field TOTAL_US <<<"$e")" ] || fail "HIST, TOTAL_US"
e=$(journal_json _PID="$pid" FUNCTION=SYSCALL_GETPPID MESSAGE_ID=37696141c77044bb90174634b6002f95 | tail -1)
[ "$(field COUNT <<<"$e")" = 30 ] && [ "$(field ERRORS <<<"$e")" = 0 ] || fail "SYSCALL_GETPPID: $e"
# no slow-call entry without a threshold: accounting only
[ "$(journal_json _PID="$pid" LAYER=syscalls MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 | wc -l)" -eq 0 ] ||
	fail "slow-call entries without a threshold"

# 3. pid: selection, and errors = yes entries for the failed openat
printf '[agent]\nuser =\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n[syscalls]\nenabled = yes\nerrors = yes\ninclude = SYSCALL_OPENAT SYSCALL_GETUID\n' >"$TMP/pid.conf"
mkfifo "$TMP/in"
"$prog" w <"$TMP/in" >/dev/null &
pp=$!
exec 3>"$TMP/in"
agent_start -c "$TMP/pid.conf" --stdout --syscalls="pid:$pp"
echo go >&3
exec 3>&-
wait "$pp"
agent_stop
counts "$TMP/agent.out" >"$TMP/pid.counts"
cat "$TMP/pid.counts"
[ "$(cut -d' ' -f1 "$TMP/pid.counts" | tr '\n' ' ')" = "getuid openat " ] || fail "include= of two"
grep -qx "openat 75 25" "$TMP/pid.counts" || fail "openat of the chosen pid"
grep -qx "getuid 15 0" "$TMP/pid.counts" || fail "getuid of the chosen pid's thread"
[ "$(grep -c " SYSCALL_OPENAT " "$TMP/agent.out")" -eq 25 ] || fail "errors = yes: 25 entries of the failed openat"

# 3b. comm: selection of a process that ran before the agent: the kernel's
# task list tells the agent of it (no /proc of other processes is read)
mkfifo "$TMP/in2"
"$prog" w <"$TMP/in2" >/dev/null &
pp=$!
exec 3>"$TMP/in2"
agent_start -c "$TMP/pid.conf" --stdout --syscalls="comm:$comm"
grep -q "accounted (.*), 1 running process chosen" "$TMP/agent.err" ||
	fail "the running $comm not chosen: $(cat "$TMP/agent.err")"
echo go >&3
exec 3>&-
wait "$pp"
agent_stop
counts "$TMP/agent.out" >"$TMP/comm.counts"
grep -qx "openat 75 25" "$TMP/comm.counts" || fail "openat of the running $comm: $(cat "$TMP/comm.counts")"

# 4. not on by default, and enabled = auto does not switch it on: a probe on
# every syscall of the machine is asked for by name
agent_start -c "$TMP/conf"
grep -q "syscalls of .* accounted" "$TMP/agent.err" && fail "syscalls layer on by default"
agent_stop
printf '[agent]\nuser =\n[smb]\nenabled = no\n[syscalls]\nenabled = auto\n' >"$TMP/auto.conf"
agent_start -c "$TMP/auto.conf"
grep -q "syscalls of .* accounted" "$TMP/agent.err" && fail "enabled = auto switched the syscalls layer on"
grep -q "enabled = auto does not count every syscall" "$TMP/agent.err" ||
	fail "enabled = auto: no line saying why the syscalls layer is off: $(cat "$TMP/agent.err")"
agent_stop

# 5. a selection that means nothing is one clear line and exit status 2
rc=0
"$SMBLAT" --syscalls=pid:x --list-probes >/dev/null 2>"$TMP/bad.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "invalid --syscalls=pid:x" "$TMP/bad.err" || fail "bad selection: $rc $(cat "$TMP/bad.err")"
echo "ok"
