#!/bin/bash
# ./run on a machine that never had the project: it creates the smblat user
# from units/smblat.sysusers (once), and the agent it starts drops root for
# that user, as the packaged service does. /etc is an overlay in a mount
# namespace of the test's own, so the machine's user database is untouched.
if [ -z "${SMBLAT_RUN_NS:-}" ]; then
	export SMBLAT_RUN_NS=1
	exec unshare --mount --propagation private "$0" "$@"
fi
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

trap 'cleanup_run' EXIT
cleanup_run() {
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
# A fresh machine has no smblat user.
for db in passwd group shadow gshadow; do
	[ ! -f "/etc/$db" ] || sed -i '/^smblat:/d' "/etc/$db"
done
! getent passwd smblat >/dev/null || fail "smblat still in the overlay's passwd"

# something to trace on any kernel: a uprobe
printf '[agent]\nthreshold = 1s\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n[probe RUN_%s]\ntarget = %s:slow_call\n' \
	$$ "$BUILD_ROOT/tests/slowprog" >"$TMP/smblat.conf"
export SMBLAT_BUILD_DIR=$BUILD_ROOT

# 1. ./run creates the user and the agent becomes it.
"$SOURCE_ROOT/run" -c "$TMP/smblat.conf" >"$TMP/run.out" 2>"$TMP/run.err" &
AGENT_PID=$!
for _ in $(seq 600); do
	grep -q "ready:" "$TMP/run.err" && break
	kill -0 "$AGENT_PID" 2>/dev/null || { cat "$TMP/run.err" >&2; fail "./run exited before the agent was ready"; }
	sleep 0.1
done
grep -q "ready:" "$TMP/run.err" || { cat "$TMP/run.err" >&2; fail "agent started by ./run not ready after 60 s"; }
grep -q "^run: creating the smblat user" "$TMP/run.err" || { cat "$TMP/run.err" >&2; fail "./run did not say it creates the user"; }
entry=$(getent passwd smblat) || fail "./run did not create the smblat user"
echo "created: $entry"
IFS=: read -r _ _ uid _ _ home shell <<<"$entry"
[ "$home" = / ] || fail "smblat's home is $home, units/smblat.sysusers says /"
case $shell in */nologin) ;; *) fail "smblat's shell is $shell, not nologin" ;; esac
[ "$uid" -lt 1000 ] || fail "smblat is not a system user (uid $uid)"
# exec: the pid of ./run is the agent's
running=$(awk '/^Uid:/ {print $2 " " $3 " " $4}' /proc/"$AGENT_PID"/status)
[ "$running" = "$uid $uid $uid" ] || { cat "$TMP/run.err" >&2; fail "agent runs as uid '$running', not smblat ($uid)"; }
grep -q "does not exist" "$TMP/run.err" && fail "the agent still says its user does not exist"
agent_stop

# 2. Once it exists, ./run leaves it alone.
"$SOURCE_ROOT/run" --check-config -c "$TMP/smblat.conf" >/dev/null 2>"$TMP/run2.err" ||
	{ cat "$TMP/run2.err" >&2; fail "./run --check-config failed"; }
! grep -q "creating the smblat user" "$TMP/run2.err" || fail "./run creates the user a second time"
[ "$(getent passwd smblat)" = "$entry" ] || fail "the smblat user changed on the second run"
echo ok
