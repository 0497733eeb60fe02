#!/bin/bash
# --flamegraph by a user who cannot read the system journal: sd-journal
# would quietly read that user's own journal alone and find nothing; smblat
# says it cannot read the system journal and why, with a non-zero exit.
# Root, on the same journal, draws the stacks (the control). On a private
# journald (tests/lib-journald.sh), with a counted-stack entry logged into it.
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
trap 'journald_private_cleanup; cleanup' EXIT
journald_private_start

fn="FGACCESS_$$"
# a counted-stack entry as the agent writes one (smblat-fields(7)): MESSAGE_ID of the stacks
mid=$(grep -rh '^#define SMBLAT_MID_STACKS ' "$SOURCE_ROOT/agent" | sed -n 's/.*"\([0-9a-f]*\)".*/\1/p' | head -1)
[ -n "$mid" ] || fail "no SMBLAT_MID_STACKS under agent/"
printf 'MESSAGE=%s stack 1 of 1\nSYSLOG_IDENTIFIER=smblat\nMESSAGE_ID=%s\nFUNCTION=%s\nSTACK_FOLDED=prog;main;leaf\nCOUNT=7\nTOTAL_US=70\n' \
	"$fn" "$mid" "$fn" >"$TMP/entry"
logger --journald="$TMP/entry" || fail "logger --journald"
for _ in $(seq 100); do
	journalctl --sync
	journalctl -q -t smblat FUNCTION="$fn" | grep -q . && break
	sleep 0.1
done

# root reads it: the control that the entry is there for --flamegraph to find
"$SMBLAT" --flamegraph - "$fn" >"$TMP/root.svg" 2>"$TMP/root.err" || { cat "$TMP/root.err"; fail "root: --flamegraph failed"; }
grep -q "leaf" "$TMP/root.svg" || fail "root: the entry's stack is not in the SVG"

# nobody is in neither systemd-journal nor adm: the system journal is closed to it
sysj=$(ls -d /run/log/journal/*/system.journal 2>/dev/null | head -1)
[ -n "$sysj" ] || fail "the private journald wrote no system journal"
! setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$sysj" ||
	fail "nobody can read $sysj: this test proves nothing here"
rc=0
setpriv --reuid=nobody --regid=nogroup --clear-groups "$SMBLAT" --flamegraph - "$fn" >"$TMP/nobody.svg" 2>"$TMP/nobody.err" || rc=$?
cat "$TMP/nobody.err"
[ "$rc" -ne 0 ] || fail "nobody: exit 0"
grep -q "cannot read the system journal.*Permission denied.*systemd-journal or adm group" "$TMP/nobody.err" ||
	fail "nobody: does not say it cannot read the system journal"
! grep -q "no stacks" "$TMP/nobody.err" || fail "nobody: blames the time range or the FUNCTION"
[ "$(wc -l <"$TMP/nobody.err")" -eq 1 ] || fail "nobody: more than one line"
[ ! -s "$TMP/nobody.svg" ] || fail "nobody: an SVG was written"
echo ok
