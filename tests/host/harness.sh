#!/bin/bash
# Each host test run by hand without SOURCE_ROOT (as meson sets it) stops at
# once with an error: without the helpers it would run its commands against
# paths under / and end in "ok" with every check failed.
set -eu
[ -n "${SOURCE_ROOT:-}" ] || { echo "FAIL: SOURCE_ROOT not set" >&2; exit 1; }
bad=0
for t in "$SOURCE_ROOT"/tests/host/*.sh; do
	[ "$(basename "$t")" = harness.sh ] && continue
	# run only what stops before its first command: a plain "$SOURCE_ROOT" could run anywhere
	if ! grep -qF '${SOURCE_ROOT:?}' "$t" && ! head -12 "$t" | grep -qE '^set -[a-z]*u'; then
		echo "FAIL: $t uses SOURCE_ROOT without requiring it" >&2
		bad=1
		continue
	fi
	out=$(env -u SOURCE_ROOT SMBLAT=/nonexistent timeout 20 bash "$t" 2>/dev/null) && rc=0 || rc=$?
	if [ "$rc" -eq 0 ] || printf '%s\n' "$out" | grep -qx ok; then
		echo "FAIL: $t without SOURCE_ROOT: exit $rc, output: $out" >&2
		bad=1
	fi
done
[ "$bad" = 0 ] || exit 1

# journal_json answers with this run's entries alone: the journal outlives a
# test, and a marker made of $$ recurs in a later run (a CI run failed so).
marker="HARNESS_${$}_$RANDOM"
send() { printf 'SYSLOG_IDENTIFIER=smblat\nFUNCTION=%s\nMESSAGE=%s\n' "$marker" "$1" | logger --journald; }
(. "$SOURCE_ROOT/tests/lib-host.sh"; journald_ensure) || exit 1
send "an earlier run"
journalctl --sync
got=$(. "$SOURCE_ROOT/tests/lib-host.sh"; send "this run"; journal_json "FUNCTION=$marker" -o cat)
[ "$got" = "this run" ] || { echo "FAIL: journal_json of a new run: $(printf '%s' "$got" | tr '\n' '|')" >&2; exit 1; }
echo ok
