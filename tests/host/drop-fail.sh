#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A privilege drop the kernel refuses (CAP_SETUID and CAP_SETGID out of the
# bounding set) stops the agent with one line saying why, in the journal
# with its REASON, and a non-zero exit: not the drop's own line and then a
# second "cannot start: Operation not permitted".
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
journald_ensure

command -v setpriv >/dev/null || fail "setpriv (util-linux) is not installed"
printf '[agent]\nuser = nobody\n' >"$TMP/smblat.conf"
rc=0
setpriv --bounding-set -setuid,-setgid --inh-caps -setuid,-setgid \
	"$SMBLAT" -c "$TMP/smblat.conf" -f syscall:nanosleep -d 2 >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -ne 0 ] || fail "the agent exited 0 although it could not drop to nobody"
said=$(grep -c -i -E 'drop|switch to user|cannot start|not permitted' "$TMP/err" || true)
[ "$said" -eq 1 ] || { cat "$TMP/err" >&2; fail "the failed drop said $said times, want once"; }
grep -q "cannot drop privileges: cannot switch to user 'nobody'" "$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "the line does not say which user and what failed"; }
grep -q "cannot start" "$TMP/err" && fail "a second line: cannot start"
# the same one line in the journal, with its reason
for _ in $(seq 50); do
	n=$(journal_json | python3 -c '
import json, sys
print(sum(1 for l in sys.stdin if json.loads(l).get("REASON") == "privileges" and "nobody" in json.loads(l).get("MESSAGE", "")))')
	[ "$n" -ge 1 ] && break
	sleep 0.1
done
[ "$n" -eq 1 ] || fail "$n journal entries with REASON=privileges for the failed drop, want 1"
echo "PASS: one line, REASON=privileges, exit $rc"
