#!/bin/bash
# --svg FILE under the shipped configuration: the agent drops to the smblat
# user after attaching, and writes the picture at exit. A path that user
# cannot write, or that cannot be created at all, fails at start (before
# anything is traced) with one line and a non-zero exit; a path it can
# write gets the picture, written as that user. /etc is an overlay in a
# mount namespace of the test's own (as in run.sh), so the smblat user
# created from units/smblat.sysusers leaves the machine's user database alone.
if [ -z "${SMBLAT_SVG_NS:-}" ]; then
	export SMBLAT_SVG_NS=1
	exec unshare --mount --propagation private "$0" "$@"
fi
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

trap 'cleanup_svg' EXIT
cleanup_svg() {
	[ -z "$AGENT_PID" ] || kill "$AGENT_PID" 2>/dev/null || true
	umount /etc 2>/dev/null || true
	umount "$TMP/ov" 2>/dev/null || true
	cleanup
}
journald_ensure
mkdir -p "$TMP/ov"
mount -t tmpfs tmpfs "$TMP/ov"
mkdir -p "$TMP/ov/up" "$TMP/ov/work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$TMP/ov/up,workdir=$TMP/ov/work" /etc
getent passwd smblat >/dev/null || systemd-sysusers "$SOURCE_ROOT/units/smblat.sysusers" >/dev/null 2>&1 ||
	fail "systemd-sysusers could not create the smblat user"
getent passwd smblat >/dev/null || fail "no smblat user"

# the shipped configuration, with stacks counted for a syscall the test makes
conf="$SOURCE_ROOT/conf/smblat.conf"
grep -qE '^#? *user *= *smblat$' "$conf" || fail "$conf does not drop to the smblat user any more"
chmod 0755 "$TMP"
mkdir -m 0700 "$TMP/rootonly"
mkdir -m 0777 "$TMP/open"

# expect_refused PATH: exit non-zero, one line naming the path, before "ready:", no file left
expect_refused() {
	local rc=0
	"$SMBLAT" -c "$conf" --stdout -d 30 --stacks -f syscall:clock_nanosleep --svg "$1" \
		>"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	cat "$TMP/err"
	[ "$rc" -ne 0 ] || fail "--svg $1: exit 0"
	! grep -q "ready:" "$TMP/err" || fail "--svg $1: tracing started before the file was refused"
	grep -qF -- "--svg $1: $2" "$TMP/err" || fail "--svg $1: no line saying '$2'"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "--svg $1: more than one line"
	[ ! -e "$1" ] || fail "--svg $1: the file was left behind"
}
expect_refused "$TMP/rootonly/x.svg" "Permission denied (as user smblat"
expect_refused /no/such/dir/x.svg "No such file or directory"

# a directory the smblat user can write: the picture, owned by that user
agent_start -c "$conf" --stdout -d 30 --stacks -f syscall:clock_nanosleep --svg "$TMP/open/x.svg"
python3 -c 'import time; [time.sleep(0.02) for _ in range(5)]'
kill -INT "$AGENT_PID"
rc=0
wait "$AGENT_PID" || rc=$?
AGENT_PID=
[ "$rc" -eq 0 ] || { cat "$TMP/agent.err"; fail "the run with --svg exited $rc"; }
grep -q "flame graph of .* written to $TMP/open/x.svg" "$TMP/agent.err" || { cat "$TMP/agent.err"; fail "no word of the SVG"; }
[ "$(stat -c %U "$TMP/open/x.svg")" = smblat ] || fail "the SVG is owned by $(stat -c %U "$TMP/open/x.svg"), not smblat"
grep -q "syscall:clock_nanosleep" "$TMP/open/x.svg" || fail "the SVG has no stack of the syscall"
echo ok
