#!/bin/bash
# The command line checks as much as the configuration does: options that
# would be ignored, lost or counted twice are refused in one line with the
# usage status (2), --check-config refuses what the agent refuses and prints
# what loads back, and the messages of a run that cannot start name its
# own problem (a directory, the capabilities of this run).
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

expect() {   # expect CODE REGEX ARGS...
	local code=$1 re=$2 rc=0
	shift 2
	"$SMBLAT" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	[ "$rc" -eq "$code" ] || { cat "$TMP/err"; fail "smblat $*: exit $rc, expected $code"; }
	grep -qE -e "$re" "$TMP/err" || { cat "$TMP/err"; fail "smblat $*: no message matching /$re/"; }
	[ "$(grep -vc "^Try 'smblat --help'" "$TMP/err")" -le 1 ] ||
		{ cat "$TMP/err"; fail "smblat $*: more than one error line"; }
}

printf '[agent]\nuser =\n' >"$TMP/plain.conf"
prog="$BUILD_ROOT/tests/slowprog"

# 1. what the command line took without a word (issue: -p over the kernel's
#    largest pid, the last of -m/-u winning, -j beside --folded, -f beside
#    --flamegraph, -f twice counting each call twice)
expect 2 'invalid pid "99999999": at most 4194304' -c /dev/null --check-config -p 99999999
expect 2 'threshold given twice \(-m and -u\)' -c /dev/null --check-config -m 5 -u 5
expect 2 'threshold given twice \(-u and MIN_MS\)' -c /dev/null --check-config -u 5 7
expect 2 '-p given twice' -c /dev/null --check-config -p 1 -p 2
expect 2 '-j and --folded' -c /dev/null --check-config -j --folded
expect 2 '-f does not go with --flamegraph' --flamegraph - -f vfs_read
expect 2 '-f vfs_read given twice: each call would be counted twice' \
	-c /dev/null --check-config -f vfs_read -f vfs_read
expect 2 '-p and --smbd-pid' -c /dev/null --check-config -p 1 --smbd-pid 2
# a -f the file traces already, by name or by syscall
printf '[agent]\nuser =\n[probe OPENS]\ntarget = syscall:openat\n[probe vfs_read]\ntarget = vfs_read\n' >"$TMP/probes.conf"
expect 2 "-f syscall:openat: \[probe OPENS\] of $TMP/probes.conf:3 traces that syscall already" \
	-c "$TMP/probes.conf" --check-config -f syscall:openat
expect 2 "-f vfs_read: $TMP/probes.conf:5 has a \[probe vfs_read\] already" \
	-c "$TMP/probes.conf" --check-config -f vfs_read
# -K where the only traced calls are uprobes' printed nothing
expect 2 "-K: $prog:slow_call is a function in user space" \
	-c "$TMP/plain.conf" --stdout -d 1 -K -f "$prog:slow_call"
# ... and is taken where a call has a kernel stack
"$SMBLAT" -c "$TMP/plain.conf" --check-config -K -f "$prog:slow_call" -f syscall:openat >/dev/null ||
	fail "-K with a syscall probe beside the uprobe refused"
expect 2 '--svg draws the stacks counted with --stacks' -c "$TMP/plain.conf" --stdout -d 1 --svg "$TMP/x.svg" -f syscall:openat
[ ! -e "$TMP/x.svg" ] || fail "--svg refused, but $TMP/x.svg was created"

# 2. --check-config refuses two probes on one syscall, as the agent does ...
printf '[probe A]\ntarget = syscall:openat\n[probe B]\ntarget = syscall:openat\n' >"$TMP/twice.conf"
expect 78 "^$TMP/twice.conf:3: \[probe B\] traces syscall:openat, as \[probe A\] does \(line 1\)" \
	-c "$TMP/twice.conf" --check-config
# ... and what it prints for -f loads back
"$SMBLAT" -c /dev/null --check-config -f "$prog:slow_call" -f syscall:openat -f c:malloc \
	-f "usdt:$prog:p:a,b" >"$TMP/dump.conf" || fail "--check-config -f"
grep -q "^\[probe .*slow_call\]" "$TMP/dump.conf" || fail "no [probe] for -f in: $(cat "$TMP/dump.conf")"
"$SMBLAT" -c "$TMP/dump.conf" --check-config >"$TMP/dump2.conf" 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "the dump of -f probes does not load back"; }
grep -q "^target = $prog:slow_call$" "$TMP/dump2.conf" || fail "the target did not come back: $(cat "$TMP/dump2.conf")"

# 3. a directory where a program was expected says so (among the agent's
#    status lines: the probe, the layer, nothing to trace)
says() {   # says CODE REGEX ARGS...
	local code=$1 re=$2 rc=0
	shift 2
	"$SMBLAT" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	[ "$rc" -eq "$code" ] && grep -qE -e "$re" "$TMP/err" ||
		{ cat "$TMP/err"; fail "smblat $*: exit $rc (expected $code), or no message matching /$re/"; }
}
says 1 "probe /tmp:main: not attached: /tmp: Is a directory" -c "$TMP/plain.conf" --stdout -d 1 -f /tmp:main
printf '[agent]\nuser =\n[smb]\nenabled = no\n[smb2]\nenabled = no\n[block]\nenabled = no\n[smbd]\nenabled = yes\nbinary = %s\n' \
	"$TMP" >"$TMP/smbd-dir.conf"
says 1 "smbd: $TMP is a directory, not smbd" -c "$TMP/smbd-dir.conf" --stdout -d 1

# 4. not root: the capabilities this run needs, not kallsyms' for every run
asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$SMBLAT" "$@"; }
rc=0
asnobody -c /dev/null --stdout -d 1 -f "$prog:slow_call" >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/err"
[ "$rc" -eq 1 ] || fail "uprobe run as nobody: exit $rc"
grep -q "CAP_BPF" "$TMP/err" && grep -q "CAP_SYS_ADMIN (uprobes" "$TMP/err" ||
	fail "uprobe run as nobody: the capabilities it needs not named"
! grep -qE "CAP_SYSLOG|kptr_restrict" "$TMP/err" || fail "uprobe run as nobody: blames kallsyms"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "uprobe run as nobody: more than one line"
rc=0
asnobody -c /dev/null --stdout -d 1 -f vfs_read >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "CAP_SYSLOG (kernel function addresses" "$TMP/err" ||
	{ cat "$TMP/err"; fail "kernel function run as nobody: exit $rc, CAP_SYSLOG not named"; }
# ... and with all but CAP_SYSLOG: a run of uprobes alone does without
# kallsyms (its kernel frames stay addresses), a kernel function's does not
printf '#!/bin/sh\nexec setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+bpf,+perfmon,+sys_admin --ambient-caps=+bpf,+perfmon,+sys_admin "%s" "$@"\n' \
	"$SMBLAT" >"$TMP/capsmblat"
chmod +x "$TMP/capsmblat"
SMBLAT=$TMP/capsmblat agent_start -c /dev/null --stdout -f "$prog:slow_call" 0
grep -q "kernel stacks show addresses only: /proc/kallsyms" "$TMP/agent.err" ||
	{ cat "$TMP/agent.err"; fail "no notice of the unreadable kallsyms"; }
"$prog" 3 >/dev/null
for _ in $(seq 100); do grep -q "slow_call" "$TMP/agent.out" && break; sleep 0.1; done
agent_stop
grep -q "slow_call" "$TMP/agent.out" || fail "the uprobe run without CAP_SYSLOG saw no call"
rc=0
"$TMP/capsmblat" -c /dev/null --stdout -d 1 -f vfs_read >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "needs CAP_SYSLOG (kernel function addresses" "$TMP/err" ||
	{ cat "$TMP/err"; fail "kernel function run without CAP_SYSLOG: exit $rc, CAP_SYSLOG not named"; }
echo ok
