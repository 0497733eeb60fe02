#!/bin/bash
# User stacks as the shipped configuration gets them: the agent drops root
# for the smblat user, the target is root's (in a directory only root may
# enter) and built -O2 -fomit-frame-pointer (tests/chainprog.c: main -> a1|a2
# -> b -> c -> leaf, 300 and 100 times). The counted stacks of leaf name
# every function of the chain, in that ratio, with no frame an address only:
#  1. read while the program runs;
#  2. read after it has exited;
#  3. with the program's symbols only in a separate debug file under
#     /usr/lib/debug/.build-id/ (the binary stripped);
#  4. a slow call's STACK entry, unwound and symbolized the same way.
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

prog="$TMP/chainprog-$$"
install -m 0755 "$BUILD_ROOT/tests/chainprog" "$prog"
comm=$(basename "$prog" | cut -c1-15)
label="$prog:leaf"
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

# run_prog WHEN: the program's calls (300 through a1, 100 through a2), and
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
	wait_for 30 grep -q done "$TMP/prog.out" || fail "chainprog did not run"
	if [ "$1" = exited ]; then
		echo end >&3
		wait "$pp"
		prog_exited "$pp" || fail "chainprog still there"
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
	grep -qE "^$comm;(.*;)?main;a1;b;c;$label 300$" "$TMP/mine" || fail "$1: no stack main;a1;b;c counted 300"
	grep -qE "^$comm;(.*;)?main;a2;b;c;$label 100$" "$TMP/mine" || fail "$1: no stack main;a2;b;c counted 100"
	# every frame a name: no address, no marker of a stack that ended early
	if tr ';' '\n' <"$TMP/mine" | grep -E '^(0x|\[)'; then
		fail "$1: frames without a name"
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

# 3. symbols only in a separate debug file, found by the build id
id=$(readelf -n "$prog" | sed -n 's/.*Build ID: *//p')
[ -n "$id" ] || fail "chainprog has no build id"
mkdir -p "/usr/lib/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$prog" "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
strip --strip-all "$prog"
if readelf -S "$prog" | grep -q '\.symtab'; then fail "strip left a symbol table"; fi
agent_start -c "$TMP/conf" --folded --stacks -f "$label"
dropped
run_prog exited
agent_stop
check_stacks "debug file"

# 4. a slow call's STACK: each call of leaf is slow at threshold 0
printf '[agent]\nuser = smblat\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n[probe SHIPPED_%s]\ntarget = %s\nthreshold = 0\nuser_stack = yes\nkernel_stack = no\n' \
	$$ "$label" >"$TMP/conf4"
has_entries() { [ "$(journal_json FUNCTION="SHIPPED_$$" | wc -l)" -ge 400 ]; }
agent_start -c "$TMP/conf4"
dropped
in=$TMP/in4
mkfifo "$in"
"$prog" w 300 100 <"$in" >"$TMP/prog.out" &
pp=$!
exec 3>"$in"
echo go >&3
echo end >&3
exec 3>&-
wait "$pp"
wait_for 60 has_entries || fail "no 400 slow-call entries: $(journal_json FUNCTION="SHIPPED_$$" | wc -l)"
agent_stop
journal_json FUNCTION="SHIPPED_$$" | python3 -c '
import collections, json, sys
folded = collections.Counter(json.loads(l).get("STACK_FOLDED", "") for l in sys.stdin)
for f, n in folded.most_common():
    print(n, f)' >"$TMP/entries"
cat "$TMP/entries"
grep -qE "^300 (.*;)?main;a1;b;c$" "$TMP/entries" || fail "no 300 entries with STACK_FOLDED ...;main;a1;b;c"
grep -qE "^100 (.*;)?main;a2;b;c$" "$TMP/entries" || fail "no 100 entries with STACK_FOLDED ...;main;a2;b;c"
echo "ok"
