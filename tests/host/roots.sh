#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tests/roots: a cached Debian 12 root with Samba (tests/roots/make), opened
# as an overlay (tests/roots/lib.sh); its own smbd serves a file to its own
# smbclient on a port of its own; the cache is left unchanged; and a test
# that fails with the root open and its smbd running leaves no mount, no
# process and no overlay behind.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
. "$SOURCE_ROOT/tests/roots/lib.sh"

if [ "${1:-}" = --failing ]; then
	# a test that dies with everything up: its EXIT trap must clean up
	roots_open "$2"
	roots_smbd_start
	echo "$ROOT $ROOTS_TMP $ROOTS_SMBD_PID" >"$3"
	false
	exit 0
fi

lower=$(roots_make bookworm samba smbclient)
before=$(cd "$lower" && find . -xdev -newer "$lower.stamp" 2>/dev/null | sort | md5sum)

roots_open "$lower"
version=$(roots_exec smbd -V)
echo "root $lower: $version"
[[ $version == "Version 4.17."* ]] || fail "bookworm's smbd says '$version'"
roots_smbd_start
echo "smbd $ROOTS_SMBD_PID on port $ROOTS_SMBD_PORT"
head -c 50000 /dev/urandom >"$ROOT/tmp/in.bin"
roots_smbclient -c "put /tmp/in.bin f.bin; get f.bin /tmp/out.bin" >"$TMP/client.out" 2>&1 ||
	{ cat "$TMP/client.out" >&2; fail "smbclient in the root failed"; }
cmp -s "$ROOT/tmp/in.bin" "$ROOTS_SMBD_SHARE/f.bin" || fail "the share holds other bytes than put"
cmp -s "$ROOT/tmp/in.bin" "$ROOT/tmp/out.bin" || fail "get returned other bytes than put"
# the smbd serving the client ran inside the root, from the root's Samba
for p in $(roots_pids); do
	[ "$(readlink "/proc/$p/root")" = "$ROOT" ] || fail "pid $p not in the root"
done
roots_pids | grep -qx "$ROOTS_SMBD_PID" || fail "smbd $ROOTS_SMBD_PID not among the root's processes"
root=$ROOT tmp=$ROOTS_TMP
roots_close
grep -q " ${tmp}[/ ]" /proc/self/mountinfo && fail "mounts of $tmp left after roots_close"
[ ! -e "$tmp" ] || fail "$tmp left after roots_close"
[ ! -e "$lower/tmp/in.bin" ] || fail "the cached root was written"
after=$(cd "$lower" && find . -xdev -newer "$lower.stamp" 2>/dev/null | sort | md5sum)
[ "$before" = "$after" ] || fail "the cached root changed while open"

# a failing test: the trap roots_open set closes the root
rc=0
"$0" --failing "$lower" "$TMP/failed" || rc=$?
[ "$rc" -ne 0 ] || fail "the failing test exited 0"
read -r root tmp smbd <"$TMP/failed" || fail "the failing test did not open its root"
grep -q " ${tmp}[/ ]" /proc/self/mountinfo && fail "a failed test left mounts of $tmp"
[ ! -e "$tmp" ] || fail "a failed test left $tmp"
! kill -0 "$smbd" 2>/dev/null || fail "a failed test left its smbd $smbd running"
echo "ok: the failed test left nothing of $root"
