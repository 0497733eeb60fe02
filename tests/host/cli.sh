#!/bin/bash
# Bad command lines and configurations: one clear line, the documented exit code.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

expect() {   # expect CODE REGEX ARGS...
	local code=$1 re=$2 rc=0
	shift 2
	"$SMBLAT" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	[ "$rc" -eq "$code" ] || { cat "$TMP/err"; fail "smblat $*: exit $rc, expected $code"; }
	grep -qE -e "$re" "$TMP/err" || { cat "$TMP/err"; fail "smblat $*: no message matching /$re/"; }
	[ "$(wc -l <"$TMP/err")" -le 2 ] || { cat "$TMP/err"; fail "smblat $*: more than one error line"; }
}

expect 2 "unrecognized option" --bogus
expect 2 "invalid pid \"abc\"" -p abc
expect 2 "invalid threshold \"ten\"" ten
expect 2 "unknown layer \"nfs\"" --layers nfs
expect 2 "unknown backend \"ebpf\"" --backend ebpf
expect 2 "--hist needs --stdout" --hist
expect 78 "No such file or directory" -c "$TMP/missing.conf"
printf '[agent]\ntreshold = 5ms\n' >"$TMP/bad.conf"
expect 78 "^$TMP/bad.conf:2: .*treshold.*threshold" -c "$TMP/bad.conf"
printf '[agent]\nthreshold = 5 parsecs\n' >"$TMP/bad2.conf"
expect 78 "^$TMP/bad2.conf:2: " -c "$TMP/bad2.conf"
"$SMBLAT" --check-config -c /dev/null 5 | grep -q "^threshold = 5ms" || fail "--check-config does not show the CLI threshold"

# options that only mean something with -f, or on the terminal, say so
expect 2 "-a needs -f TARGET" -a 2
expect 2 "-e needs -f TARGET" -e
expect 2 "-f usdt:/x:p:s: the target needs two USDT probes" -f usdt:/x:p:s
expect 2 "no syscall \"opn\".*did you mean \"syscall:open\"" -f syscall:opn

printf '[agent]\nuser =\n' >"$TMP/plain.conf"
# -j is a terminal format: it implies --stdout, and CSV readers get CSV only
# (the summary table goes to stderr)
"$SMBLAT" -c "$TMP/plain.conf" -j -f syscall:clock_nanosleep 0 >"$TMP/csv" 2>"$TMP/csv.err" &
pid=$!
for _ in $(seq 300); do grep -q "ready:" "$TMP/csv.err" && break; sleep 0.1; done
grep -q "ready:.*output terminal" "$TMP/csv.err" || fail "-j: not a terminal run: $(cat "$TMP/csv.err")"
python3 -c 'import time; [time.sleep(0.01) for _ in range(3)]'
for _ in $(seq 300); do [ "$(grep -c python3 "$TMP/csv")" -ge 3 ] && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid" || fail "-j run exited $?"
head -1 "$TMP/csv" | grep -qx "ENDTIME_us,TASK,PID,FUNCTION,LATENCY_us,RVAL" || fail "-j header: $(head -1 "$TMP/csv")"
python3 - "$TMP/csv" <<'PY' || fail "-j output is not CSV of six columns: $(cat "$TMP/csv")"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) >= 4, rows           # the header and the three sleeps at least
assert all(len(r) == 6 for r in rows), rows
PY
grep -q "syscall:clock_nanosleep" "$TMP/csv.err" || fail "-j: the summary table is not on stderr"

# the kernel functions of this machine: --list-probes says why they are not traced
if [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	"$SMBLAT" -c "$TMP/plain.conf" --list-probes >"$TMP/list" 2>"$TMP/list.err" || fail "--list-probes: $?"
	grep -E "^INODE_OP_UNLINK +smb " "$TMP/list" | grep -q "kprobes: no kprobe event source (CONFIG_KPROBE_EVENTS)" ||
		fail "--list-probes: no backend reason for INODE_OP_UNLINK: $(grep INODE_OP_UNLINK "$TMP/list")"
	! grep -q "not served by cifs" "$TMP/list" || fail "--list-probes blames cifs for the kernel"
fi

# module:function and library:function targets, as funcslower users type them
"$SMBLAT" -c "$TMP/plain.conf" --list-probes -f c:open >"$TMP/list" 2>"$TMP/list.err" ||
	fail "--list-probes -f c:open: exit $?: $(cat "$TMP/list.err")"
grep -E "^c:open +func +/[^ ]*/libc\.so\.6:open +uprobe(-session)? +attached$" "$TMP/list" ||
	fail "c:open not attached as libc's open: $(cat "$TMP/list" "$TMP/list.err")"
rc=0
"$SMBLAT" -c "$TMP/plain.conf" --list-probes -f ext4:ext4_sync_file >"$TMP/list" 2>"$TMP/list.err" || rc=$?
[ "$rc" -eq 0 ] || fail "--list-probes -f ext4:ext4_sync_file: exit $rc: $(cat "$TMP/list.err")"
grep -q "^ext4:ext4_sync_file " "$TMP/list" || fail "ext4:ext4_sync_file not listed: $(cat "$TMP/list")"
if [ ! -e /sys/module/cifs ]; then
	rc=0
	"$SMBLAT" -c "$TMP/plain.conf" --stdout -d 1 -f cifs:cifs_unlink >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/err"
	[ "$rc" -eq 1 ] || fail "-f cifs:cifs_unlink without cifs: exit $rc, expected 1"
	grep -q "cifs" "$TMP/err" && grep -q "nothing to trace" "$TMP/err" ||
		fail "-f cifs:cifs_unlink without cifs: no clear reason"
fi
echo ok
