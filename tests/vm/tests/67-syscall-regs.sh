#!/bin/bash
# syscall:NAME probes on every kernel: the arguments read at sys_enter and
# the syscall number read at sys_exit come from the task's saved registers
# (bpf_task_pt_regs()), or where the kernel lacks that helper (before 5.15)
# from the tracepoint's own registers. A failed openat(2) below the
# threshold is reported (errors = yes) under its probe with ENOENT and
# its first argument, AT_FDCWD; a 100 ms sleep(1), clock_nanosleep(2) in
# glibc, over the threshold is reported with its latency.
. "$VM_DIR/lib.sh"

cat >conf <<CONF
[agent]
threshold = 50ms
user =
[smb]
enabled = no
[smb2]
enabled = no
[smbd]
enabled = no
[block]
enabled = no
[histogram]
interval = 0
[probe SYS_OPEN_$$]
target = syscall:openat
threshold = 1h
errors = yes
args = 1
[probe SYS_SLEEP_$$]
target = syscall:clock_nanosleep
CONF

"$SMBLAT" -c conf --list-probes >list 2>&1 || fail "--list-probes: $(cat list)"
cat list >&2
grep -Eq "^SYS_OPEN_$$ .* (tp_btf|raw_tp) +attached" list || fail "SYS_OPEN_$$ not attached"
agent_start -c conf
journal_mark
cat "/nonexistent-$$" 2>/dev/null || true
sleep 0.1
e=$(journal_wait "FUNCTION=SYS_OPEN_$$" ERRNO_NAME=ENOENT | head -1)
args=$(journal_field "$e" ARGS)
log "openat ARGS: $args"
# AT_FDCWD is -100, whatever the width the entry prints it in
case $args in
0xffffff9c* | 0xffffffffffffff9c* | -100*) ;;
*) fail "openat's first argument is not AT_FDCWD: ARGS=$args" ;;
esac
e=$(journal_wait "FUNCTION=SYS_SLEEP_$$" | head -1)
assert_ge "$(journal_field "$e" LATENCY_US)" 100000 "clock_nanosleep LATENCY_US"
agent_stop
