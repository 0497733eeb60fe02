# A journald of the test's own, for tests that stop, freeze or flood it:
# the machine's journald (and other tests using it) must not notice.
#
#   . "$SOURCE_ROOT/tests/lib-journald.sh"
#   journald_ns "$@"             # first: re-runs the script in a mount namespace
#   . "$SOURCE_ROOT/tests/lib-host.sh"
#   journald_private_start       # a journald on tmpfs sockets and storage
#
# In the namespace /run/systemd/journal, /run/log/journal and /var/log/journal
# are empty tmpfs, so the agent (libsystemd's fixed socket path), journald
# and journalctl all meet there. journald's own rate limit is off: the tests
# count every entry, and a silent drop by journald would break the count.

journald_ns() {
	if [ -z "${SMBLAT_JOURNALD_NS:-}" ]; then
		export SMBLAT_JOURNALD_NS=1
		exec unshare --mount --propagation private "$0" "$@"
	fi
	mount -t tmpfs tmpfs /run/systemd/journal
	mount -t tmpfs tmpfs /run/log/journal
	[ ! -d /var/log/journal ] || mount -t tmpfs tmpfs /var/log/journal
}

JOURNALD_PID=

journald_private_start() {
	if [ ! -f "$TMP/journald.conf" ]; then
		printf '[Journal]\nStorage=volatile\nRateLimitIntervalSec=0\nRuntimeMaxUse=512M\nForwardToSyslog=no\nForwardToWall=no\n' \
			>"$TMP/journald.conf"
		mount --bind "$TMP/journald.conf" /etc/systemd/journald.conf
	fi
	rm -f /run/systemd/journal/socket
	/lib/systemd/systemd-journald </dev/null >/dev/null 2>&1 &
	JOURNALD_PID=$!
	for _ in $(seq 100); do
		[ -S /run/systemd/journal/socket ] && return 0
		sleep 0.1
	done
	fail "private systemd-journald did not start"
}

# journald_private_stop [keep-socket]: kills it; the socket file stays behind
# (as after a crash) unless asked to remove it.
journald_private_stop() {
	[ -n "$JOURNALD_PID" ] || return 0
	kill -KILL "$JOURNALD_PID" 2>/dev/null || true
	wait "$JOURNALD_PID" 2>/dev/null || true
	JOURNALD_PID=
	[ "${1:-}" = keep-socket ] || rm -f /run/systemd/journal/socket
}

# Called from the test's EXIT trap, with lib-host.sh's cleanup.
journald_private_cleanup() {
	if [ -n "$JOURNALD_PID" ]; then
		kill -CONT "$JOURNALD_PID" 2>/dev/null || true
		journald_private_stop
	fi
}
