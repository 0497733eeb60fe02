#!/bin/bash
# The shipped SELinux module (smblat.pp) under Debian's reference policy, in
# permissive mode (tests/vm/run --selinux): the agent, installed and
# labelled as a package installs it and started the way its unit starts it
# (from init_t, with no_new_privs and the unit's bounding set, stdout and
# stderr on a journal stream, sd_notify to a socket of init), runs in
# smblat_t through a session of every layer: slow SMB calls, SMB2 requests,
# smbd, block I/O, a kernel function and a syscall probe, kernel stacks, a
# reload that attaches a cifs operation as the smblat user, a summary,
# SIGTERM. The kernel must then have audited no denial for
# smblat_t, nor for the transition into it. A process put in smblat_t
# that reads /etc/shadow shows that such denials are seen.
. "$VM_DIR/lib.sh"

ctx=system_u:system_r
[ "$SMBLAT_VM_SELINUX" = 1 ] || fail "not a SELinux guest (run through tests/vm/run --selinux)"
[ "$(cat /sys/fs/selinux/enforce)" = 0 ] || fail "SELinux is not in permissive mode"

# label PATH TYPE: PATH's SELinux type must be TYPE.
label() {
	local t
	t=$(stat -c %C "$1" | cut -d: -f3)
	assert_eq "$t" "$2" "SELinux type of $1"
}

# ---- installed as a package installs it
install -m 0755 "$SMBLAT" /usr/sbin/smblat
install -D -m 0644 "$REPO/units/smblat.sysusers" /usr/lib/sysusers.d/smblat.conf
systemd-sysusers smblat.conf
id smblat >/dev/null || fail "systemd-sysusers did not create the smblat user"
mkdir -p /etc/smblat
disk=$(basename "$(findmnt -n -o SOURCE "$EXT4_MNT")")
cat >/etc/smblat/smblat.conf <<CONF
[agent]
threshold = 20ms
user = smblat
[histogram]
interval = 1h
[smb]
exclude = INODE_OP_SETATTR
[smb2]
enabled = yes
[block]
enabled = yes
threshold = 0
disks = $disk
[smbd]
enabled = yes
vfs = yes
threshold = 0
[probe VFS_FSYNC]
target = vfs_fsync_range
threshold = 0
[probe SYS_FSYNC]
target = syscall:fsync
threshold = 0
CONF
restorecon -RF /usr/sbin/smblat /etc/smblat /usr/lib/sysusers.d /etc/passwd /etc/group /etc/shadow /etc/gshadow
label /usr/sbin/smblat smblat_exec_t
label /etc/smblat/smblat.conf smblat_conf_t
label /run/systemd/journal/socket devlog_t

# ---- a notify socket of init's, as systemd's
notify=/run/systemd/notify
in_init() { runcon "$ctx:init_t:s0" "$@"; }
# runcon itself, not in_init: $! must be the process that execs
runcon "$ctx:init_t:s0" python3 -u -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    os.unlink(sys.argv[1])
except FileNotFoundError:
    pass
s.bind(sys.argv[1])
print("listening", flush=True)
while True:
    print(s.recv(4096).decode(errors="replace").replace("\n", " "), flush=True)
' "$notify" >notify.log 2>&1 &
listener=$!
trap 'kill $listener 2>/dev/null; _vm_exit' EXIT
for _ in $(seq 300); do
	grep -q listening notify.log && break
	sleep 0.1
done
[ -S $notify ] || fail "notify listener did not start: $(cat notify.log)"
# systemd's is open to all: the agent sends READY=1 as the smblat user
chmod 0777 $notify
restorecon -F $notify
label $notify init_runtime_t

# ---- started as the unit starts it
journal_mark
log "starting the agent from init_t (its output: the journal, copied to agent.log)"
# Every descriptor the agent inherits is opened in init_t, as under systemd
# (a descriptor of another domain is a denial of its own).
runcon "$ctx:init_t:s0" bash -c 'exec </dev/null >/dev/null 2>&1 env NOTIFY_SOCKET='$notify' WATCHDOG_USEC=30000000 \
	setpriv --no-new-privs --bounding-set -all,+bpf,+perfmon,+sys_admin,+syslog,+setuid,+setgid,+setpcap \
	systemd-cat -t smblat /usr/sbin/smblat -c /etc/smblat/smblat.conf' &
AGENT_PID=$!
echo "$AGENT_PID" >"$LOG_DIR/agent.pid"
t0=$(now_ms)
while (($(now_ms) - t0 < ${AGENT_READY_TIMEOUT:-120} * 1000)); do
	grep -q 'READY=1' notify.log && break
	kill -0 "$AGENT_PID" 2>/dev/null || break
	sleep 0.1
done
log "READY=1 after $(($(now_ms) - t0)) ms"
journalctl -q --no-pager -o cat _PID="$AGENT_PID" >"$AGENT_LOG" || true
grep -q 'READY=1' notify.log ||
	fail "no READY=1 from the agent: $(tail -3 "$AGENT_LOG" | tr '\n' ' ')"
st=/proc/$AGENT_PID/status
assert_eq "$(cat /proc/"$AGENT_PID"/attr/current | tr -d '\0')" "$ctx:smblat_t:s0" "agent's SELinux context"
assert_eq "$(awk '/^Uid:/ {print $2}' $st)" "$(id -u smblat)" "agent's uid after the drop"
assert_eq "$(awk '/^NoNewPrivs:/ {print $2}' $st)" 1 "NoNewPrivs"
log "agent $AGENT_PID ready in $(cat /proc/"$AGENT_PID"/attr/current | tr -d '\0')"

# status_wait ERE: waits for an agent message (status entry or stderr line
# on the stream) matching ERE.
status_wait() {
	for _ in $(seq 300); do
		journal_query | jq -r .MESSAGE | grep -E "$1" && return 0
		sleep 0.2
	done
	fail "no agent message matching '$1'"
}

status_wait "smb: [1-9][0-9]* of [0-9]+ cifs operations attached"

# ---- a session
d=$SMB_MNT/selinux.$$
mkdir "$d"
echo x >"$d/victim"
echo x >"$d/from"
netem_on 20
rm "$d/victim"
mv "$d/from" "$d/to"
touch "$d/new"
ls "$d" >/dev/null
dd if=/dev/zero of="$d/data" bs=64k count=4 conv=fsync status=none
dd if="$d/data" of=/dev/null bs=64k iflag=direct status=none
netem_off
dd if=/dev/zero of="$EXT4_MNT/selinux.$$" bs=64k count=16 conv=fsync status=none

for m in "FUNCTION=INODE_OP_UNLINK COMM=rm" "FUNCTION=INODE_OP_RENAME2" "FUNCTION=SMB2_CREATE COMM=touch" \
	"FUNCTION=SMBD_VFS_UNLINKAT" "LAYER=block FUNCTION=BLOCK_WRITE" "FUNCTION=VFS_FSYNC COMM=dd" \
	"FUNCTION=SYS_FSYNC COMM=dd"; do
	# shellcheck disable=SC2086
	e=$(journal_wait $m | head -1)
	log "$m: LATENCY_US $(journal_field "$e" LATENCY_US) PID $(journal_field "$e" PID)"
done
e=$(journal_wait FUNCTION=INODE_OP_UNLINK COMM=rm | head -1)
journal_field "$e" STACK | grep -q vfs_unlink || fail "no symbolized kernel stack: $(journal_field "$e" STACK)"

# ---- a reload, signalled from init_t as systemd does: the excluded
# operation is attached by the agent running as smblat (capabilities
# raised around the attach), then a summary
sed -i '/^exclude = INODE_OP_SETATTR$/d' /etc/smblat/smblat.conf
in_init kill -HUP "$AGENT_PID"
status_wait "reload: applied: .*[1-9][0-9]* attached"
journal_mark
netem_on 20
touch -d '2001-01-01 00:00' "$d/to"
netem_off
journal_wait FUNCTION=INODE_OP_SETATTR COMM=touch >/dev/null
in_init kill -USR1 "$AGENT_PID"
journal_wait FUNCTION=INODE_OP_UNLINK MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac >/dev/null
grep -q 'WATCHDOG=1' notify.log || log "no watchdog ping yet (every 15 s)"

# ---- SIGTERM from init_t
pid=$AGENT_PID
AGENT_PID=
in_init kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
assert_eq "$rc" 0 "agent's exit status after SIGTERM"
grep -q 'STOPPING=1' notify.log || fail "no STOPPING=1 from the agent"
journalctl -q --no-pager -o cat _PID="$pid" >"$AGENT_LOG" || true
cp notify.log "$LOG_DIR/"
rm -rf "$d" "$EXT4_MNT/selinux.$$"

# ---- denials: the kernel's audit records, as printed to the kernel log
# (journald may stop reading the audit socket when it overflows; the kernel
# log keeps them all, with printk's rate limit off and a large buffer).
avcs() {
	dmesg | grep -E 'avc: +denied' | sed -E 's/^.*(avc: +denied)/\1/' | sort -u
}
# The control: smblat_t entered through cat (not its entry point) reading
# /etc/shadow; once its denial is in, every earlier record is too.
runcon "$ctx:smblat_t:s0" cat /etc/shadow >/dev/null &
control=$!
wait $control || true
for _ in $(seq 300); do
	avcs | grep -E 'scontext=[^ ]*:smblat_t:.* tcontext=[^ ]*:shadow_t:' >/dev/null && break
	sleep 0.2
done
avcs >"$LOG_DIR/avc.txt"
grep -E 'scontext=[^ ]*:smblat_t:.* tcontext=[^ ]*:shadow_t:' "$LOG_DIR/avc.txt" >/dev/null ||
	fail "the control's denial (smblat_t reading shadow_t) was not seen: audit records are not read"
! dmesg | grep -E 'audit_lost=|audit: (backlog limit exceeded|printk limit exceeded)' ||
	fail "the kernel lost audit records"
log "$(wc -l <"$LOG_DIR/avc.txt") distinct denials in all (every domain; see avc.txt)"

# Everything smblat_t was denied, and the domain transition into it,
# except the control's. Records on dev="9p" are left out: kernels without
# "selinux: fix overlayfs mmap() and mprotect() access checks" check a
# mapping's mprotect() against the overlay root's backing file (9p, no
# label) as well as the labelled overlay file that was mapped; a root that
# is no overlay has no such check.
grep -E 'scontext=[^ ]*:smblat_t:|tcontext=[^ ]*:smblat_t:[^ ]* tclass=process' "$LOG_DIR/avc.txt" |
	grep -v " pid=$control " >denied || true
grep 'dev="9p"' denied >"$LOG_DIR/smblat-9p-records.txt" || true
grep -v 'dev="9p"' denied >real || true
if [ -s real ]; then
	cp real "$LOG_DIR/smblat-denials.txt"
	cat real >&2
	fail "$(wc -l <real) denials for smblat_t: $(head -3 real | sed -E 's/ +/ /g' | tr '\n' ';')"
fi
log "no denial for smblat_t ($(wc -l <"$LOG_DIR/smblat-9p-records.txt") on the 9p backing files)"
