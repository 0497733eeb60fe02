#!/bin/bash
# --list-probes and --check-config write nothing to the journal, whether
# they succeed or not: they answer on the terminal. Counted on a private
# journald (every program's entries, not only smblat's), with a run of the agent as
# the control that the count does see entries.
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
trap 'journald_private_cleanup; cleanup' EXIT
journald_private_start

prog="$TMP/quietprog"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
printf '[agent]\nuser = nosuchuser%s\n[block]\nenabled = yes\n[probe QUIET]\ntarget = %s:slow_call\n[probe QUIET_MISSING]\ntarget = %s:no_such_function\n' \
	$$ "$prog" "$prog" >"$TMP/smblat.conf"
printf '[agent]\nthreshold = soon\n' >"$TMP/broken.conf"
# entries from programs: native, stdout/stderr and syslog (not journald's
# own or the kernel's, where every journald's sync requests land)
count() {
	journalctl --sync
	journalctl -q --no-pager -o json | grep -cE '"_TRANSPORT":"(journal|stdout|syslog)"' || true
}

before=$(count)
"$SMBLAT" -c "$TMP/smblat.conf" --list-probes >"$TMP/list" 2>"$TMP/list.err" || fail "--list-probes: $(cat "$TMP/list.err")"
grep -q "^QUIET " "$TMP/list" || fail "--list-probes did not list the probe: $(cat "$TMP/list")"
grep -q "smblat: " "$TMP/list.err" || fail "--list-probes said nothing on stderr about what it cannot attach"
"$SMBLAT" -c "$TMP/smblat.conf" --check-config >/dev/null || fail "--check-config"
! "$SMBLAT" -c "$TMP/broken.conf" --check-config >/dev/null 2>&1 || fail "--check-config took a broken file"
! "$SMBLAT" -c "$TMP/broken.conf" --list-probes >/dev/null 2>&1 || fail "--list-probes took a broken file"
# a target that is not there: listed as not found
"$SMBLAT" -c /dev/null --list-probes -f /bin/true:no_such_symbol >"$TMP/list2" 2>/dev/null || true
grep -q "no_such_symbol" "$TMP/list2" || fail "--list-probes -f: $(cat "$TMP/list2")"
after=$(count)
[ "$after" -eq "$before" ] || {
	journalctl -q --no-pager | tail -n $((after - before)) >&2
	fail "$((after - before)) journal entries written by --list-probes/--check-config"
}

# the control: a run writes (start, layers, ready, stop)
"$SMBLAT" -c "$TMP/smblat.conf" -d 1 2>/dev/null || fail "the control run failed"
[ "$(count)" -gt "$after" ] || fail "the count does not see the agent's entries: the test proves nothing"
echo "ok: $before entries before, $after after; $(count) after a run"
