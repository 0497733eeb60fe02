#!/bin/bash
# User stacks as the shipped configuration gets them: the agent drops root
# for the smblat user, the target is root's (in a directory only root may
# enter; tests/stackprog.c: main -> call_site_a|b -> stack_target, 300 and
# 100 times). The counted stacks name every function of the chain, in that
# ratio, with no frame an address only:
#  1. read while the program runs;
#  2. read after it has exited.
# /etc (the smblat user, from units/smblat.sysusers) and /usr/lib/debug are
# overlays in a mount namespace of the test's own: the machine is untouched.
if [ -z "${SMBLAT_STACKS_NS:-}" ]; then
	export SMBLAT_STACKS_NS=1
	exec unshare --mount --propagation private "$0" "$@"
fi
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

trap 'cleanup_ns' EXIT
cleanup_ns() {
	[ -z "$AGENT_PID" ] || kill "$AGENT_PID" 2>/dev/null || true
	umount /usr/lib/debug 2>/dev/null || true
	umount /etc 2>/dev/null || true
	umount "$TMP/ov" 2>/dev/null || true
	cleanup
}
journald_ensure
chmod 0700 "$TMP"
mkdir -p "$TMP/ov" /usr/lib/debug
mount -t tmpfs tmpfs "$TMP/ov"
mkdir -p "$TMP/ov/etc" "$TMP/ov/etc.work" "$TMP/ov/debug" "$TMP/ov/debug.work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$TMP/ov/etc,workdir=$TMP/ov/etc.work" /etc
mount -t overlay overlay -o "lowerdir=/usr/lib/debug,upperdir=$TMP/ov/debug,workdir=$TMP/ov/debug.work" /usr/lib/debug
getent passwd smblat >/dev/null || systemd-sysusers "$SOURCE_ROOT/units/smblat.sysusers" >/dev/null
getent passwd smblat >/dev/null || fail "no smblat user after systemd-sysusers"

prog="$TMP/stackprog-$$"
install -m 0755 "$BUILD_ROOT/tests/stackprog" "$prog"
comm=$(basename "$prog" | cut -c1-15)
label="$prog:stack_target"
# no slow-call entries: a call the scheduler held past a threshold would be
# a folded line of its own beside the counted stacks
printf '[agent]\nuser = smblat\nthreshold = 1h\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n' >"$TMP/conf"

wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}

has_folded() { grep -q "^$comm;.*;$label [0-9]*$" "$TMP/agent.out"; }
prog_exited() { ! kill -0 "$1" 2>/dev/null; }

# run_prog WHEN: the program's calls (300 through call_site_a, 100 through b), and
# its counts read (SIGUSR1: a summary) while it runs (live) or once it has
# exited (exited)
run_prog() {
	local in=$TMP/in.$$ pp
	rm -f "$in"
	mkfifo "$in"
	"$prog" w 300 100 <"$in" >"$TMP/prog.out" &
	pp=$!
	exec 3>"$in"
	echo go >&3
	wait_for 30 grep -q done "$TMP/prog.out" || fail "stackprog did not run"
	if [ "$1" = exited ]; then
		echo end >&3
		wait "$pp"
		prog_exited "$pp" || fail "stackprog still there"
	fi
	kill -USR1 "$AGENT_PID"
	wait_for 30 has_folded || fail "no counted stacks after SIGUSR1: $(cat "$TMP/agent.out" "$TMP/agent.err")"
	if [ "$1" = live ]; then
		echo end >&3
		wait "$pp"
	fi
	exec 3>&-
}

# check_stacks WHAT: two stacks, every frame named, the chain whole
check_stacks() {
	grep "^$comm;" "$TMP/agent.out" >"$TMP/mine" || true
	echo "$1:"
	cat "$TMP/mine"
	[ "$(wc -l <"$TMP/mine")" -eq 2 ] || fail "$1: expected two stacks, got $(wc -l <"$TMP/mine")"
	grep -qE "^$comm;(.*;)?main;call_site_a;$label 300$" "$TMP/mine" || fail "$1: no stack main;call_site_a counted 300"
	grep -qE "^$comm;(.*;)?main;call_site_b;$label 100$" "$TMP/mine" || fail "$1: no stack main;call_site_b counted 100"
	# every frame a name or a marker, none an address
	if tr ';' '\n' <"$TMP/mine" | grep -E '^0x'; then
		fail "$1: frames that are addresses only"
	fi
}

# the agent drops root: it must say so, and still symbolize root's program
dropped() {
	local uid
	uid=$(awk '/^Uid:/ {print $2}' /proc/"$AGENT_PID"/status)
	[ "$uid" = "$(id -u smblat)" ] || fail "agent runs as uid $uid, not smblat"
}

# 1. while the program runs
agent_start -c "$TMP/conf" --folded --stacks -f "$label"
dropped
run_prog live
agent_stop
check_stacks "running"

# 2. after it has exited
agent_start -c "$TMP/conf" --folded --stacks -f "$label"
dropped
run_prog exited
agent_stop
check_stacks "exited"

echo "ok"
