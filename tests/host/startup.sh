#!/bin/bash
# Starting where some or all of the work cannot be done (this machine's
# kernel: no fentry, no kprobes, no cifs): the agent says which layers it
# cannot run and why; it keeps running while something is traced, and exits
# non-zero with the reasons when nothing is and nothing can come.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

journald_ensure
have_kfuncs=1
[ -e /sys/bus/event_source/devices/kprobe ] || have_kfuncs=0

# 1. Something to trace (block) beside an smb layer that cannot run: it runs.
printf '[agent]\nuser =\n[smb]\nenabled = yes\n[block]\nenabled = yes\n' >"$TMP/smblat.conf"
agent_start -c "$TMP/smblat.conf"
pid=$AGENT_PID
grep -E "^smblat: smb: (layer unavailable on this kernel: .+|cifs module not loaded; attaching when it is)$" "$TMP/agent.err" \
	|| { cat "$TMP/agent.err"; fail "no line saying why the smb layer is not attached"; }
if [ "$have_kfuncs" = 0 ] && ! grep -q "kprobes: no kprobe event source (CONFIG_KPROBE_EVENTS)" "$TMP/agent.err"; then
	fail "kprobes are missing here but the agent does not say so"
fi
# The programs the agent holds, by id, from its file descriptors.
ids=$(grep -h '^prog_id:' /proc/"$AGENT_PID"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u)
[ -n "$ids" ] || fail "agent ready but holds no BPF program"
agent_stop
# the kernel frees programs after a grace period once their last link is gone
for id in $ids; do
	for _ in $(seq 50); do
		bpftool prog show id "$id" >/dev/null 2>&1 || continue 2
		sleep 0.1
	done
	fail "BPF program $id still loaded 5 s after exit"
done
journal_json MESSAGE_ID=6d4a741edd5141d1b887a019dbc27c13 _PID="$pid" | grep -q '"MESSAGE" *: *"ready:' \
	|| fail "no ready status entry in the journal"

# expect_refusal WHY_PATTERN ARGS...: exits 1 within seconds, says why and that nothing is traced
expect_refusal() {
	local why=$1 rc=0
	shift
	timeout 60 "$SMBLAT" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/err"
	[ "$rc" -eq 1 ] || fail "$*: exit status $rc, expected 1 (124: still running)"
	grep -q "$why" "$TMP/err" || fail "$*: no line saying \"$why\""
	grep -q "^smblat: nothing to trace: " "$TMP/err" || fail "$*: no \"nothing to trace\" line"
	! grep -q "ready:" "$TMP/err" || fail "$*: said ready"
}

# 2. Nothing attached and nothing ever will be: the reasons, and exit 1.
printf '[agent]\nuser =\n' >"$TMP/default.conf"
printf '[agent]\nuser =\n[smb]\nenabled = yes\n[smb2]\nenabled = no\n[block]\nenabled = no\n[smbd]\nenabled = no\n' \
	>"$TMP/smb-only.conf"
if [ "$have_kfuncs" = 0 ]; then
	expect_refusal "smb: layer unavailable on this kernel" -c "$TMP/smb-only.conf"
fi
expect_refusal "/bin/true has no function no_such_symbol" -c "$TMP/default.conf" --stdout \
	-f /bin/true:no_such_symbol
if [ -x "$BUILD_ROOT/tests/usdtprog" ]; then
	expect_refusal "no USDT probes usdtprog:nope_start and usdtprog:nope_end" -c "$TMP/default.conf" \
		--stdout -f "usdt:$BUILD_ROOT/tests/usdtprog:usdtprog:nope_start,nope_end"
fi
expect_refusal "no_such_lib_$$: no kernel module or library of that name here" -c "$TMP/default.conf" --stdout \
	-f "no_such_lib_$$:malloc"
echo ok
