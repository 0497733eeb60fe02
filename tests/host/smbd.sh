#!/bin/bash
# The smbd layer without a VM: a real smbd on loopback, started AFTER the
# agent (the probes are on the library file, so new processes are covered),
# driven by smbclient; its VFS calls and SMB2 requests must reach the journal,
# with an SMBD_EXIT entry for each session's smbd (also one killed) and its
# time split, whose phases add up to its wall time.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

command -v smbclient >/dev/null || fail "smbclient not installed"
SMBD=$(command -v smbd || echo /usr/sbin/smbd)
[ -x "$SMBD" ] || fail "smbd not installed"

SMBD_PID=
CLIENT_PID=
smbd_cleanup() {
	[ -n "$CLIENT_PID" ] && kill "$CLIENT_PID" 2>/dev/null || true
	# smbd's children follow their parent's SIGTERM
	[ -n "$SMBD_PID" ] && kill "$SMBD_PID" 2>/dev/null || true
	[ -n "$SMBD_PID" ] && for _ in $(seq 50); do kill -0 "$SMBD_PID" 2>/dev/null || break; sleep 0.1; done
	cleanup
}
trap smbd_cleanup EXIT

journald_ensure
port=$((20000 + $$ % 20000))
S="$TMP/samba"
samba_conf "$S" "$port"

# threshold 0 and every call an entry: no rate limit, so that none of those
# the checks look for is suppressed
cat >"$TMP/smblat.conf" <<CONF
[agent]
threshold = 0
rate_limit = 0
user =
[smb]
enabled = no
[smbd]
enabled = yes
threshold = 0
vfs = yes
time_split = yes
CONF

# 1. the agent first
agent_start -c "$TMP/smblat.conf"
grep -E "smbd: [0-9]+ VFS operations? and [0-9]+ SMB2 commands?" "$TMP/agent.err" ||
	fail "no smbd attach line: $(cat "$TMP/agent.err")"
n_vfs=$(sed -n 's/.*smbd: \([0-9]*\) VFS operation.*/\1/p' "$TMP/agent.err")
[ "$n_vfs" -ge 50 ] || fail "only $n_vfs smb_vfs_call_* attached"

# 2. then smbd
# its own session: smbd signals its process group when it stops
setsid "$SMBD" -F --no-process-group -s "$S/smb.conf" --debug-stdout >"$S/smbd.out" 2>&1 &
SMBD_PID=$!
for _ in $(seq 100); do
	timeout 5 smbclient "//127.0.0.1/share" -p "$port" -N -c "ls" >/dev/null 2>&1 && break
	kill -0 "$SMBD_PID" 2>/dev/null || { cat "$S/smbd.out" >&2; fail "smbd exited"; }
	sleep 0.2
done

# 3. one client session, held open (a get into a FIFO nobody reads yet) until
#    the smbd child serving it is known
head -c 100000 /dev/urandom >"$TMP/in.bin"
mkfifo "$TMP/hold"
before=$(pgrep -P "$SMBD_PID" | sort)
timeout 60 smbclient "//127.0.0.1/share" -p "$port" -N -c "put $TMP/in.bin file-$$.bin; \
get file-$$.bin $TMP/out.bin; mkdir dir-$$; get file-$$.bin $TMP/hold; rm file-$$.bin; \
get missing-$$.bin $TMP/missing.bin" >"$TMP/client.out" 2>&1 &
CLIENT_PID=$!
children=
for _ in $(seq 150); do
	children=$(comm -13 <(echo "$before") <(pgrep -P "$SMBD_PID" | sort) | tr '\n' ' ')
	[ -n "$children" ] && break
	sleep 0.2
done
[ -n "$children" ] || fail "no smbd child for the session"
echo "smbd $SMBD_PID, session child: $children"
timeout 30 cat "$TMP/hold" >/dev/null || fail "smbclient never wrote the held file"
wait "$CLIENT_PID" || true
CLIENT_PID=
grep -q "OBJECT_NAME_NOT_FOUND.*missing-$$" "$TMP/client.out" ||
	fail "smbclient did not finish: $(cat "$TMP/client.out")"
cmp -s "$TMP/in.bin" "$TMP/out.bin" || fail "get returned other bytes than put"
[ -d "$S/share/dir-$$" ] || fail "mkdir did not reach the share"
[ ! -e "$S/share/file-$$.bin" ] || fail "rm did not reach the share"
# the session's smbd exits on its own once the client left: its exit is checked below
for c in $children; do
	for _ in $(seq 150); do
		kill -0 "$c" 2>/dev/null || break
		sleep 0.2
	done
	! kill -0 "$c" 2>/dev/null || fail "session child $c still running after the client left"
done
agent_pid=$AGENT_PID
agent_stop

# 4. the journal: what this agent wrote (_PID) about these smbd processes (PID)
j=$(journal_json LAYER=smbd _PID="$agent_pid" | python3 -c '
import json, sys
smbd_pids = set(sys.argv[1].split()) | {sys.argv[2]}
for line in sys.stdin:
    e = json.loads(line)
    if "PID" in e and e["PID"] not in smbd_pids:
        continue
    print(e.get("MESSAGE_ID"), e.get("FUNCTION"), e.get("PID"), e.get("COMM"),
          e.get("LATENCY_US", "-"), e.get("RETVAL", "-"), e.get("COUNT", "-"))
' "$children" "$SMBD_PID")
views=$(journal_json LAYER=smbd _PID="$agent_pid" | jq -c 'select(.FUNCTION == "SMBD_EXIT" or .FUNCTION == "SMBD_TIME_SPLIT")')
slow=a48f35af155e4887a8d221f2a9c1c250
summary=ab8331e2b4474579a55840c9d3a77bac
count() { printf '%s\n' "$j" | awk -v m="$1" -v f="$2" '$1 == m && $2 == f' | wc -l; }
for f in SMBD_VFS_OPENAT SMBD_VFS_UNLINKAT SMBD_VFS_MKDIRAT SMBD_VFS_FSTAT SMBD_SMB2_CREATE \
	 SMBD_SMB2_WRITE SMBD_SMB2_READ SMBD_SMB2_CLOSE; do
	n=$(count $slow $f)
	echo "$f: $n entries"
	[ "$n" -ge 1 ] || fail "no $f entry from an smbd process ($SMBD_PID $children)"
done
# every entry is an smbd process's, with its command name
bad=$(printf '%s\n' "$j" | awk -v m=$slow '$1 == m && $4 !~ /^smbd/' | head -3)
[ -z "$bad" ] || fail "entries with another COMM: $bad"
# a served child, not only the parent, did the file work
printf '%s\n' "$j" | awk -v m=$slow '$1 == m && $2 == "SMBD_VFS_UNLINKAT" {print $3}' |
	grep -qxF -f <(tr ' ' '\n' <<<"$children" | grep .) ||
	fail "SMBD_VFS_UNLINKAT not from the child serving the session ($children)"
# SMB2 requests end with their NTSTATUS: success, and the missing file's OBJECT_NAME_NOT_FOUND
printf '%s\n' "$j" | awk -v m=$slow '$1 == m && $2 == "SMBD_SMB2_CREATE" && $6 == "0x0"' | grep -q . ||
	fail "no successful SMBD_SMB2_CREATE (RETVAL 0x0)"
printf '%s\n' "$j" | awk -v m=$slow '$1 == m && $2 == "SMBD_SMB2_CREATE" && $6 == "0xc0000034"' | grep -q . ||
	fail "no SMBD_SMB2_CREATE with RETVAL 0xc0000034 for the missing file"
# summaries at stop count the same calls
for f in SMBD_VFS_OPENAT SMBD_SMB2_CREATE; do
	c=$(printf '%s\n' "$j" | awk -v m=$summary -v f=$f '$1 == m && $2 == f {s += $7} END {print s + 0}')
	e=$(count $slow $f)
	echo "$f: summary COUNT $c, entries $e"
	[ "$c" -ge "$e" ] && [ "$c" -ge 1 ] || fail "$f summary COUNT=$c, entries $e"
done

# 4b. the session's smbd exited when smbclient left: its client, the status
#     its connection ended with, where smbd decided, the last failed syscall
for c in $children; do
	x=$(jq -c "select(.FUNCTION == \"SMBD_EXIT\" and .PID == \"$c\")" <<<"$views" | head -1)
	[ -n "$x" ] || fail "no SMBD_EXIT for session child $c"
	echo "exit: $(jq -r .MESSAGE <<<"$x")"
	[ "$(jq -r .MESSAGE_ID <<<"$x")" = 3aefbceff9ca401c9d1fb860c0bd08d8 ] || fail "SMBD_EXIT MESSAGE_ID"
	[[ "$(jq -r .SMB_CLIENT <<<"$x")" == 127.0.0.1:* ]] || fail "SMB_CLIENT: $x"
	[ "$(jq -r .SMB_STATUS <<<"$x")" = STATUS_END_OF_FILE ] || fail "SMB_STATUS: $x"
	[[ "$(jq -r .SMBD_EXIT_LOCATION <<<"$x")" == *smb2_server.c:* ]] || fail "SMBD_EXIT_LOCATION: $x"
	[ "$(jq -r .SMBD_EXIT_HOW <<<"$x")" = exit_server_cleanly ] || fail "SMBD_EXIT_HOW: $x"
	[ "$(jq -r .EXIT_STATUS <<<"$x")" = 0 ] || fail "EXIT_STATUS: $x"
	[ "$(jq -r .LAST_ERROR_SYSCALL <<<"$x")" != null ] || fail "no LAST_ERROR_SYSCALL: $x"
	[[ "$(jq -r .STACK <<<"$x")" == *smbd_exit_server_cleanly* ]] || fail "exit stack: $(jq -r .STACK <<<"$x")"
	# its time split: the phases add up to its wall time
	t=$(jq -c "select(.FUNCTION == \"SMBD_TIME_SPLIT\" and .PID == \"$c\")" <<<"$views" | head -1)
	[ -n "$t" ] || fail "no SMBD_TIME_SPLIT for session child $c"
	echo "split: $(jq -r .MESSAGE <<<"$t")"
	jq -e '((.WAIT_US|tonumber) + (.RECV_US|tonumber) + (.PARSE_US|tonumber) + (.RUN_US|tonumber) +
	       (.SEND_US|tonumber) + (.CTDB_US|tonumber) + (.OTHER_US|tonumber)) as $sum |
	       (.WALL_US|tonumber) as $wall | $wall > 0 and ($sum - $wall | fabs) <= 0.05 * $wall' <<<"$t" >/dev/null ||
		fail "phases do not add up to the wall time: $t"
	jq -e '(.REQUESTS|tonumber) >= 10 and (.RUN_US|tonumber) > 0 and (.RECVS|tonumber) > 0 and
	       (.RUN_IO_US|tonumber) <= (.RUN_US|tonumber) and
	       (.SENDS|tonumber) > 0 and (.EVENTS|tonumber) > 0' <<<"$t" >/dev/null ||
		fail "requests, receives, sends or events missing: $t"
done

# 4c. forced exits: a session's smbd killed (SIGTERM: smbd's own reason; SIGKILL: the signal),
#     with the default configuration: no syscall hooked, the client's address still there
printf '[agent]\nuser =\n[smb]\nenabled = no\n[smbd]\nenabled = yes\n' >"$TMP/default.conf"
agent_start -c "$TMP/default.conf"
for sig in TERM KILL; do
	mkfifo "$TMP/stdin.$sig"
	before=$(pgrep -P "$SMBD_PID" | sort)
	smbclient "//127.0.0.1/share" -p "$port" -N <"$TMP/stdin.$sig" >/dev/null 2>&1 &
	CLIENT_PID=$!
	exec 4>"$TMP/stdin.$sig"
	victim=
	for _ in $(seq 150); do
		victim=$(comm -13 <(echo "$before") <(pgrep -P "$SMBD_PID" | sort) | head -1)
		[ -n "$victim" ] && break
		sleep 0.2
	done
	[ -n "$victim" ] || fail "no smbd child for the held session"
	kill "-$sig" "$victim"
	exec 4>&-
	wait "$CLIENT_PID" || true
	CLIENT_PID=
	x=
	for _ in $(seq 100); do
		x=$(journal_json FUNCTION=SMBD_EXIT PID="$victim" | tail -1)
		[ -n "$x" ] && break
		sleep 0.2
	done
	[ -n "$x" ] || fail "no SMBD_EXIT for the smbd killed with SIG$sig"
	echo "SIG$sig: $(jq -r .MESSAGE <<<"$x")"
	if [ $sig = TERM ]; then
		[ "$(jq -r .SMBD_EXIT_REASON <<<"$x")" = "termination signal" ] || fail "SIGTERM reason: $x"
	else
		[ "$(jq -r .EXIT_SIGNAL_NAME <<<"$x")" = SIGKILL ] || fail "SIGKILL: $x"
	fi
	[[ "$(jq -r .SMB_CLIENT <<<"$x")" == 127.0.0.1:* ]] || fail "killed session's SMB_CLIENT: $x"
	# the last failed syscall needs exit_errors = yes (or the time split)
	[ "$(jq -r .LAST_ERROR_SYSCALL <<<"$x")" = null ] || fail "LAST_ERROR_SYSCALL by default: $x"
done
agent_stop

# 5. from the command line; include= narrows; a wrong binary= is one clear line
"$SMBLAT" -c "$TMP/smblat.conf" --layers smbd --list-probes >"$TMP/list.out" 2>"$TMP/list.err" ||
	fail "--layers smbd --list-probes: $(cat "$TMP/list.err")"
grep -qE "^SMBD_VFS_OPENAT +smbd .*libsmbd.*:smb_vfs_call_openat +uprobe(-multi|-session)? +attached$" "$TMP/list.out" ||
	fail "SMBD_VFS_OPENAT not listed as attached: $(grep OPENAT "$TMP/list.out")"
# every view says what it attaches
for v in SMBD_EXIT SMBD_OPLOCK_BREAK SMBD_LEASE_BREAK SMBD_TIME_SPLIT; do
	grep -qE "^$v +smbd .*libsmbd.* +uprobe(-multi)? +attached$" "$TMP/list.out" || fail "$v not listed"
done
for tp in sys_enter sys_exit sched_process_exec sched_process_fork sched_process_exit; do
	grep -qE "^\(smbd processes\) +smbd +$tp +(raw_tp|tp_btf) +attached$" "$TMP/list.out" || fail "$tp not listed"
done
# the default: SMB2 requests, no VFS calls, no time split, no syscall hooked
"$SMBLAT" -c "$TMP/default.conf" --list-probes >"$TMP/list.out" 2>"$TMP/list.err" || fail "default: $(cat "$TMP/list.err")"
! grep -q "^SMBD_VFS_" "$TMP/list.out" || fail "VFS calls attached by default"
grep -q "^SMBD_SMB2_CREATE " "$TMP/list.out" && grep -q "^SMBD_EXIT .* attached$" "$TMP/list.out" ||
	fail "default: no SMB2 requests or exits"
! grep -q "^SMBD_TIME_SPLIT .* attached$" "$TMP/list.out" || fail "time split on by default"
! grep -q "sys_enter\|sys_exit" "$TMP/list.out" || fail "syscalls hooked by default: $(grep sys_ "$TMP/list.out")"
printf '[smbd]\nexit_errors = yes\n' | cat "$TMP/default.conf" - >"$TMP/errors.conf"
"$SMBLAT" -c "$TMP/errors.conf" --list-probes >"$TMP/list.out" 2>"$TMP/list.err" || fail "exit_errors: $(cat "$TMP/list.err")"
grep -q "sys_exit .* attached$" "$TMP/list.out" && ! grep -q "sys_enter" "$TMP/list.out" ||
	fail "exit_errors = yes: $(grep sys_ "$TMP/list.out")"
printf '[agent]\nuser =\n[smb]\nenabled = no\n[smbd]\nenabled = yes\ninclude = SMBD_VFS_UNLINKAT SMBD_SMB2_CLOSE\n' >"$TMP/inc.conf"
"$SMBLAT" -c "$TMP/inc.conf" --list-probes >"$TMP/list.out" 2>"$TMP/list.err" || fail "include=: $(cat "$TMP/list.err")"
[ "$(grep -cE '^SMBD_(VFS|SMB2)_' "$TMP/list.out")" -eq 2 ] || fail "include= of two: $(grep '^SMBD_' "$TMP/list.out")"
# no SMB2 command wanted: no warning that they are not attached
printf '[agent]\nuser =\n[smb]\nenabled = no\n[smbd]\nenabled = yes\ninclude = SMBD_VFS_UNLINKAT\n' >"$TMP/vfs.conf"
"$SMBLAT" -c "$TMP/vfs.conf" --list-probes >"$TMP/list.out" 2>"$TMP/list.err" || fail "include= VFS only: $(cat "$TMP/list.err")"
[ "$(grep -cE '^SMBD_(VFS|SMB2)_' "$TMP/list.out")" -eq 1 ] || fail "include= of one: $(grep '^SMBD_' "$TMP/list.out")"
! grep -q "not attached" "$TMP/list.err" || fail "a warning for what was not asked for: $(cat "$TMP/list.err")"
printf '[agent]\nuser =\n[smb]\nenabled = no\n[smbd]\nenabled = yes\nbinary = /nonexistent/smbd\n' >"$TMP/bad.conf"
"$SMBLAT" -c "$TMP/bad.conf" --list-probes >"$TMP/list.out" 2>"$TMP/list.err" || true
grep -q "smbd: .*neither /nonexistent/smbd nor its libraries define smb_vfs_call_openat: No such file or directory" \
	"$TMP/list.err" || fail "wrong binary=: $(cat "$TMP/list.err")"
echo "ok"
