#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The smbd layer and its views against the Samba of every Debian release
# (bullseye 4.13, bookworm 4.17, trixie 4.22, sid's newest), each smbd
# running in a cached root of its release (tests/roots) and traced from the
# host with [smbd] binary = ROOT/usr/sbin/smbd, by the agent as shipped:
# dropping root for the smblat user. Per release:
#   - the root's library is the one probed (not the host's of the same name),
#     its Samba version named at start with what it lacks, and nothing else;
#   - its SMB2 requests and VFS calls are entries of the root's smbd;
#   - a connection opened before the agent (Samba 4.22 renames its process
#     smbd[127.0.0.1]) and one opened after it each get their time split,
#     with the loop's waits for disk writes in RUN_IO_US, and their SMBD_EXIT
#     when the client leaves, with its address and smbd's reason and source
#     location read, none left unread;
#   - --smbd-pid on such a connection prints tsmbd's report of it;
#   - another Samba installation on the machine (the host's own smbd, also
#     named smbd) gets no entry, and --syscalls' smbd selection leaves it out;
#   - smbtorture's oplock and lease breaks are entries of the root's smbd.
# SMBLAT_SMBD_RELEASES narrows the releases (default: all four).
. "${SOURCE_ROOT:?}/tests/roots/lib.sh"
roots_ns "$@"
. "$SOURCE_ROOT/tests/lib-host.sh"

RELEASES=${SMBLAT_SMBD_RELEASES:-bullseye bookworm trixie sid}
command -v smbclient >/dev/null || fail "smbclient not installed"
command -v smbtorture >/dev/null || fail "smbtorture (samba-testsuite) not installed"
HOST_SMBD=$(command -v smbd || echo /usr/sbin/smbd)
[ -x "$HOST_SMBD" ] || fail "smbd not installed"

HOST_SMBD_PID=
release_cleanup() {
	for fd in 4 5 6 7; do
		(trap '' PIPE; echo exit >&$fd) 2>/dev/null || true
	done
	[ -z "$HOST_SMBD_PID" ] || kill "$HOST_SMBD_PID" 2>/dev/null || true
	umount /etc 2>/dev/null || true
	cleanup
}
trap release_cleanup EXIT

# Every check is made; the failures are listed at the end (each names the
# release), so that one run shows all a build gets wrong.
FAILED=0
expect() {
	local what=$1
	shift
	if "$@"; then
		echo "ok   [$REL] $what"
	else
		echo "FAIL [$REL] $what" >&2
		FAILED=$((FAILED + 1))
	fi
}

journald_ensure

# The shipped configuration drops root for the smblat user: made from
# units/smblat.sysusers in an overlay of /etc (this mount namespace only).
if ! getent passwd smblat >/dev/null; then
	mkdir -p "$TMP/etc-up" "$TMP/etc-work"
	mount -t overlay overlay -o "lowerdir=/etc,upperdir=$TMP/etc-up,workdir=$TMP/etc-work" /etc
	systemd-sysusers "$SOURCE_ROOT/units/smblat.sysusers" >/dev/null
fi
getent passwd smblat >/dev/null || fail "no smblat user"

# Another Samba installation on the same machine: the host's smbd, whose
# processes are called smbd too, on a port of its own.
HOST_PORT=$(roots_free_port)
samba_conf "$TMP/hostsmbd" "$HOST_PORT"
setsid "$HOST_SMBD" -F --no-process-group -s "$TMP/hostsmbd/smb.conf" </dev/null >"$TMP/hostsmbd/out" 2>&1 &
HOST_SMBD_PID=$!
for _ in $(seq 150); do
	timeout 5 smbclient //127.0.0.1/share -p "$HOST_PORT" -N -c ls >/dev/null 2>&1 && break
	kill -0 "$HOST_SMBD_PID" 2>/dev/null || fail "the host's smbd exited: $(cat "$TMP/hostsmbd/out")"
	sleep 0.2
done

# new_child SMBD_PID BEFORE: the child of SMBD_PID not in BEFORE (polls).
new_child() {
	local c
	for _ in $(seq 150); do
		c=$(comm -13 <(echo "$2") <(pgrep -P "$1" | sort) | head -1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
	done
	return 1
}

# session_open FD PORT SMBD_PID: an smbclient session to //127.0.0.1/share
# at PORT reading its commands from descriptor FD; SESSION_CHILD is the
# smbd child serving it.
session_open() {
	local fd=$1 port=$2 smbd=$3 before
	rm -f "$TMP/in.$fd"
	mkfifo "$TMP/in.$fd"
	before=$(pgrep -P "$smbd" | sort)
	smbclient //127.0.0.1/share -p "$port" -N <"$TMP/in.$fd" >"$TMP/client.$fd" 2>&1 &
	eval "exec $fd>\"$TMP/in.$fd\""
	session_run "$fd" ls
	SESSION_CHILD=$(new_child "$smbd" "$before") || fail "[$REL] no smbd child of $smbd for the session"
}

# fifo_drained FIFO: polls until the reader took everything written to it.
# smbclient reads its commands through a buffer of its own and waits for
# more input before it runs a second line that came in the same read: one
# line at a time.
fifo_drained() {
	python3 - "$1" <<'PY'
import fcntl, os, struct, sys, termios, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
for _ in range(600):
    if struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0] == 0:
        sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
PY
}

# session_run FD COMMAND...: the session runs them; returns once it has.
session_run() {
	local fd=$1 mark=$TMP/mark.$1.$RANDOM c
	shift
	for c in "$@" "! touch $mark"; do
		# (a reader gone would kill the test by SIGPIPE, not fail it)
		(trap '' PIPE; printf '%s\n' "$c" >&"$fd") 2>/dev/null ||
			fail "[$REL] smbclient (descriptor $fd) is gone: $(tail -3 "$TMP/client.$fd")"
		fifo_drained "$TMP/in.$fd" || fail "[$REL] smbclient (descriptor $fd) does not read its commands"
	done
	for _ in $(seq 600); do
		[ -e "$mark" ] && return 0
		sleep 0.1
	done
	fail "smbclient (descriptor $fd) did not run: $*: $(tail -3 "$TMP/client.$fd")"
}

# session_close FD CHILD: the client leaves (an ordinary logoff and
# disconnect); waits for its smbd to exit.
session_close() {
	(trap '' PIPE; echo exit >&"$1") 2>/dev/null || true
	eval "exec $1>&-"
	for _ in $(seq 150); do
		kill -0 "$2" 2>/dev/null || return 0
		sleep 0.1
	done
	fail "smbd $2 still runs after its client left"
}

# wait_entry MATCH...: polls the journal for an entry of this agent.
wait_entry() {
	local e
	for _ in $(seq 100); do
		e=$(journal_json _PID="$AGENT_PID" "$@" | tail -1)
		[ -n "$e" ] && { echo "$e"; return 0; }
		sleep 0.2
	done
	return 1
}

jq_true() { jq -e "$1" <<<"$2" >/dev/null 2>&1; }
jq_file() { jq -e -s "$1" "$2" >/dev/null 2>&1; }
matches() { [[ $1 =~ $2 ]]; }
not_matches() { ! [[ $1 =~ $2 ]]; }

# check_split WHAT PID: PID's SMBD_TIME_SPLIT (the summary SIGUSR1 asked for):
# its requests, the loop's waits for its disk writes, phases adding up.
check_split() {
	local split
	split=$(wait_entry FUNCTION=SMBD_TIME_SPLIT PID="$2") || true
	echo "split of the $1: $(jq -r .MESSAGE <<<"${split:-{\}}")"
	expect "$1: SMBD_TIME_SPLIT" test -n "$split"
	expect "$1: its requests are counted" jq_true '(.REQUESTS|tonumber) >= 5 and (.RUN_US|tonumber) > 0' "$split"
	expect "$1: the loop's waits for its disk writes are in RUN_IO_US" jq_true \
		'(.RUN_IO_US|tonumber) > 0 and (.RUN_IO_US|tonumber) <= (.RUN_US|tonumber) and (.DISK_WRITES|tonumber) > 0' \
		"$split"
	expect "$1: the phases add up to the wall time" jq_true '((.WAIT_US|tonumber) + (.RECV_US|tonumber) +
		(.PARSE_US|tonumber) + (.RUN_US|tonumber) + (.SEND_US|tonumber) + (.CTDB_US|tonumber) +
		(.OTHER_US|tonumber)) as $s | (.WALL_US|tonumber) as $w | $w > 0 and ($s - $w | fabs) <= 0.05 * $w' "$split"
}

# check_exit WHAT PID: PID's SMBD_EXIT after an ordinary logoff and disconnect.
check_exit() {
	local x
	x=$(wait_entry FUNCTION=SMBD_EXIT PID="$2") || true
	echo "exit of the $1: $(jq -c '{MESSAGE, SMB_CLIENT, SMB_STATUS, SMBD_EXIT_REASON, SMBD_EXIT_LOCATION,
		SMBD_EXIT_HOW, EXIT_STATUS, SMBD_EXIT_UNREAD}' <<<"${x:-{\}}")"
	expect "$1: SMBD_EXIT" test -n "$x"
	expect "$1: SMBD_EXIT with its client" jq_true '.SMB_CLIENT | startswith("127.0.0.1:")' "$x"
	expect "$1: SMBD_EXIT with the status, exit_server_cleanly" jq_true \
		'(.SMB_STATUS | length > 0) and .SMBD_EXIT_HOW == "exit_server_cleanly" and .EXIT_STATUS == "0"' "$x"
	expect "$1: SMBD_EXIT_REASON on an ordinary disconnect" jq_true '.SMBD_EXIT_REASON | length > 0' "$x"
	expect "$1: SMBD_EXIT_LOCATION, a place in smbd's source" jq_true \
		'.SMBD_EXIT_LOCATION | test("\\.c:[0-9]+$")' "$x"
	expect "$1: no string left unread" jq_true 'has("SMBD_EXIT_UNREAD") | not' "$x"
}

release() {
	REL=$1
	local lower version want_ver conf old new old2 hchild host_pids e n v pid i cmds
	local t0=$SECONDS
	lower=$(roots_make "$REL" samba smbclient)
	roots_open "$lower"
	version=$(roots_exec smbd -V)
	want_ver=$(sed -n 's/^Version \([0-9.]*\).*/\1/p' <<<"$version")
	echo "== $REL: $version, root $ROOT"
	roots_smbd_start
	head -c 4000000 /dev/urandom >"$TMP/big"

	# a connection older than the agent
	session_open 4 "$ROOTS_SMBD_PORT" "$ROOTS_SMBD_PID"
	old=$SESSION_CHILD
	echo "connection before the agent: smbd $old ($(cat "/proc/$old/comm"))"
	# the other installation's connection, and all its processes
	session_open 5 "$HOST_PORT" "$HOST_SMBD_PID"
	hchild=$SESSION_CHILD
	host_pids=" $HOST_SMBD_PID $(pgrep -P "$HOST_SMBD_PID" | tr '\n' ' ') "

	conf=$TMP/$REL.conf
	cat >"$conf" <<CONF
[agent]
user = smblat
threshold = 0
rate_limit = 0
[histogram]
interval = 0
[smb]
enabled = no
[block]
enabled = no
[smbd]
enabled = yes
binary = $ROOT/usr/sbin/smbd
threshold = 0
vfs = yes
time_split = yes
[syscalls]
enabled = yes
CONF
	agent_start -c "$conf"
	grep "smbd:\|syscalls:" "$TMP/agent.err" || true
	# the root's library, with its version
	v=$(grep -E "smbd: [0-9]+ VFS operations and [0-9]+ SMB2 commands of" "$TMP/agent.err") || true
	expect "the root's library is probed, its Samba version named" \
		matches "$v" " of $ROOT/usr/lib/[^ ]*libsmbd-base[^ ]* \\(Samba $want_ver, $ROOT/usr/sbin/smbd\\)"
	# what a version lacks is named with the version; nothing it has is named lacking
	if [[ $want_ver == 4.13.* ]]; then
		expect "4.13 lacks smbd_smb2_is_last_in_compound, said with its version" grep -q \
			"(Samba $want_ver) lacks smbd_smb2_is_last_in_compound: SMB2 requests without their header ids" \
			"$TMP/agent.err"
	fi
	expect "no view named lacking what the library exports" not_matches "$(grep "smbd: " "$TMP/agent.err" |
		grep -E "lacks|without" | grep -v -e "kernel lacks" -e smbd_smb2_is_last_in_compound)" .

	# a connection made after the agent: what follows is checked on both, so that
	# one older than the agent, and the rest on its own, tell their failures apart
	session_open 7 "$ROOTS_SMBD_PORT" "$ROOTS_SMBD_PID"
	new=$SESSION_CHILD
	# both write to disk; the other installation makes directories
	session_run 4 "put $TMP/big big1" "put $TMP/big big2" "put $TMP/big big3" "get big1 /dev/null" \
		"mkdir d1" "mkdir d2" "mkdir d3" "rm big2" ls
	session_run 7 "put $TMP/big new1" "put $TMP/big new2" "put $TMP/big new3" "get new1 /dev/null" ls
	cmds=()
	for i in $(seq 20); do
		cmds+=("mkdir h-$REL-$i")
	done
	session_run 5 "${cmds[@]}" "put $TMP/big hbig"
	kill -USR1 "$AGENT_PID"
	check_split "connection older than the agent" "$old"
	check_split "connection made after the agent" "$new"
	# the clients leave: smbd's exits, with what it said
	session_close 4 "$old"
	session_close 7 "$new"
	check_exit "connection older than the agent" "$old"
	check_exit "connection made after the agent" "$new"

	# breaks, by Samba's own protocol tests (the host's smbtorture)
	timeout 120 smbtorture //127.0.0.1/share -p "$ROOTS_SMBD_PORT" -U% smb2.oplock.batch1 >"$TMP/oplock.$REL" 2>&1 ||
		fail "[$REL] smbtorture smb2.oplock.batch1: $(tail -5 "$TMP/oplock.$REL")"
	timeout 120 smbtorture //127.0.0.1/share -p "$ROOTS_SMBD_PORT" -U% smb2.lease.break_twice >"$TMP/lease.$REL" 2>&1 ||
		fail "[$REL] smbtorture smb2.lease.break_twice: $(tail -5 "$TMP/lease.$REL")"
	e=$(wait_entry FUNCTION=SMBD_OPLOCK_BREAK) || true
	expect "an oplock break entry (smb2.oplock.batch1)" jq_true '.BREAK_TO | length > 0' "$e"
	e=$(wait_entry FUNCTION=SMBD_LEASE_BREAK) || true
	expect "a lease break entry (smb2.lease.break_twice)" jq_true '(.LEASE_KEY | length == 32) and (.BREAK_TO | length > 0)' "$e"

	session_close 5 "$hchild"
	pid=$AGENT_PID
	agent_stop
	journal_json _PID="$pid" >"$TMP/$REL.json"
	for f in SMBD_SMB2_CREATE SMBD_SMB2_WRITE SMBD_SMB2_READ SMBD_VFS_OPENAT SMBD_VFS_MKDIRAT; do
		expect "$f entries of the connection" jq_file \
			"map(select(.FUNCTION == \"$f\" and .PID == \"$old\")) | length > 0" "$TMP/$REL.json"
	done
	if [[ $want_ver != 4.13.* ]]; then
		expect "the requests carry their SMB2 header ids" jq_file \
			"map(select(.FUNCTION == \"SMBD_SMB2_CREATE\" and .PID == \"$old\" and (.SMB_SESSION_ID|length > 0))) | length > 0" \
			"$TMP/$REL.json"
	fi
	# the host's smbd: none of its processes
	n=$(jq -r 'select(.PID) | .PID' "$TMP/$REL.json" | sort -u | while read -r p; do
		[[ $host_pids == *" $p "* ]] && echo "$p"
	done | wc -l)
	expect "no entry of the other installation's smbd processes ($host_pids)" test "$n" -eq 0
	# its 20 mkdirat are not the root smbd's 3 (the summary SIGUSR1 asked for, after them)
	e=$(jq -c 'select(.FUNCTION == "SYSCALL_MKDIRAT" and .MESSAGE_ID == "37696141c77044bb90174634b6002f95")' "$TMP/$REL.json" | head -1)
	echo "SYSCALL_MKDIRAT: $(jq -r '.COUNT // "none"' <<<"${e:-{\}}")"
	expect "--syscalls' smbd selection counts the root's smbd alone (3 mkdirat, not 23)" \
		jq_true '(.COUNT|tonumber) >= 3 and (.COUNT|tonumber) < 20' "$e"

	# --smbd-pid on a connection older than the agent: tsmbd's report
	session_open 6 "$ROOTS_SMBD_PORT" "$ROOTS_SMBD_PID"
	old2=$SESSION_CHILD
	printf '[agent]\nuser = smblat\n[smbd]\nbinary = %s/usr/sbin/smbd\n' "$ROOT" >"$TMP/$REL.pid.conf"
	agent_start -c "$TMP/$REL.pid.conf" --smbd-pid "$old2" --hist=1
	session_run 6 "put $TMP/big p1" "get p1 /dev/null" ls
	for _ in $(seq 100); do
		grep -q "^smbd $old2.*wall time" "$TMP/agent.out" && break
		sleep 0.1
	done
	session_close 6 "$old2"
	agent_stop
	grep -A3 "^smbd $old2" "$TMP/agent.out" | head -12
	expect "--smbd-pid prints the report of a connection older than the agent" \
		grep -q "^smbd $old2.*wall time" "$TMP/agent.out"
	expect "... with its SMB2 requests" grep -qE "SMB2 requests [1-9]" "$TMP/agent.out"

	roots_close
	echo "== $REL: $((SECONDS - t0)) s"
}

for r in $RELEASES; do
	release "$r"
done
[ "$FAILED" -eq 0 ] || fail "$FAILED checks failed (above)"
echo "ok"
