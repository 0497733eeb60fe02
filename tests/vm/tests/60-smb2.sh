#!/bin/bash
# The smb2 layer: SMB2 requests of the cifs client timed from mid allocation
# to release, one FUNCTION per command, with the sender's PID/COMM (not
# cifsd's), SMB_MID, SMB_SERVER, SMB_STATUS of failed responses, and the
# requests a slow VFS call waited on listed in its own entry.
. "$VM_DIR/lib.sh"

cat >conf <<CONF
[agent]
threshold = 30ms
user =
[histogram]
interval = 0
[smb2]
enabled = yes
threshold = 30ms
errors = yes
CONF
d=$SMB_MNT/smb2.$$
mkdir -p "$d"
echo x >"$d/victim"
head -c 65536 /dev/urandom >"$d/data"

# Which functions serve the mids here, and how they are attached.
cat >conf-list <<CONF
[agent]
user =
[smb]
enabled = no
[smb2]
enabled = yes
CONF
"$SMBLAT" -c conf-list --list-probes >probes.txt 2>&1 || fail "--list-probes: $(cat probes.txt)"
cp probes.txt "$LOG_DIR/"
if why=$(smb2_unavailable probes.txt); then
	skip "$why"
fi
grep -E '^MID_ALLOC +smb2 +smb2_mid_entry_alloc \[cifs\] +(fentry|kprobe-multi|kprobe) +attached' probes.txt ||
	fail "no attached MID_ALLOC hook in --list-probes"
grep -E '^MID_FREE +smb2 +\S+ \[cifs\] +\S+ +attached' probes.txt || fail "no attached MID_FREE hook"
grep -E '^SMB2_CREATE +smb2 ' probes.txt | grep -q attached || fail "SMB2_CREATE not listed as attached"

agent_start -c conf
grep -q 'smb2: 19 SMB2 commands timed' "$AGENT_LOG" || fail "agent did not report the smb2 layer: $(grep smb2 "$AGENT_LOG")"
journal_mark

netem_on 20
touch "$d/new" & touch_pid=$!
wait $touch_pid
rm "$d/victim" & rm_pid=$!
wait $rm_pid
cat "$d/missing" 2>/dev/null & cat_pid=$!
wait $cat_pid || true
# Reads bypassing the page cache: the SMB2_READ may complete in cifsd.
dd if="$d/data" of=/dev/null bs=64k iflag=direct 2>/dev/null
netem_off

e=$(journal_wait FUNCTION=SMB2_CREATE COMM=touch | head -1)
log "touch create: $e"
assert_ge "$(journal_field "$e" LATENCY_US)" 40000 "SMB2_CREATE LATENCY_US (netem round trip)"
assert_eq "$(journal_field "$e" LAYER)" smb2 "LAYER"
assert_eq "$(journal_field "$e" PID)" "$touch_pid" "PID of the sender, not of cifsd"
[[ $(journal_field "$e" SMB_MID) =~ ^[0-9]+$ ]] || fail "SMB_MID not numeric: $(journal_field "$e" SMB_MID)"
assert_eq "$(journal_field "$e" SMB_SERVER)" 127.0.0.1 "SMB_SERVER"
[[ $(journal_field "$e" SMB_COMPOUND) =~ ^[01]$ ]] || fail "SMB_COMPOUND: $(journal_field "$e" SMB_COMPOUND)"

# The unlink: its wire requests carry rm's identity, and its own entry lists them.
e=$(journal_wait FUNCTION=INODE_OP_UNLINK COMM=rm | head -1)
log "unlink: $e"
reqs=$(journal_field "$e" SMB2_REQUESTS)
[[ $reqs =~ ^SMB2_[A-Z_]+:[0-9]+\.[0-9]ms(,SMB2_[A-Z_]+:[0-9]+\.[0-9]ms)*$ ]] || fail "SMB2_REQUESTS: '$reqs'"
[[ $reqs == *SMB2_CREATE:* ]] || fail "SMB2_REQUESTS of the unlink lacks SMB2_CREATE: $reqs"
n=$(journal_field "$e" SMB2_REQUEST_COUNT)
assert_ge "$n" 1 "SMB2_REQUEST_COUNT"
wire=$(journal_field "$e" SMB2_WIRE_US)
assert_ge "$wire" 40000 "SMB2_WIRE_US of the unlink"
lat=$(journal_field "$e" LATENCY_US)
for r in ${reqs//,/ }; do
	c=${r%%:*}
	ms=${r#*:}
	ms=${ms%ms}
	# A compound chain's requests overlap: each fits in the call, their sum need not.
	assert_ge "$((lat / 100))" "${ms/./}" "$c of the unlink (${ms} ms) within the unlink ($lat us)"
	# rm's lookup before the unlink (d_revalidate, untraced) sends requests of its own
	s=$(journal_wait FUNCTION="$c" COMM=rm FILE=victim | head -1)
	assert_eq "$(journal_field "$s" PID)" "$rm_pid" "PID of rm's $c"
	assert_eq "$(journal_field "$s" SMB_SHARE)" '\\127.0.0.1\share' "SMB_SHARE of rm's $c"
done

# The read: its SMB2_READ is listed whichever thread released it.
e=$(journal_wait FUNCTION=FILE_READ_ITER COMM=dd | head -1)
log "read: $e"
reqs=$(journal_field "$e" SMB2_REQUESTS)
[[ $reqs == *SMB2_READ:* ]] || fail "SMB2_REQUESTS of the direct read lacks SMB2_READ: '$reqs'"
e=$(journal_wait FUNCTION=SMB2_READ COMM=dd | head -1)
assert_ge "$(journal_field "$e" LATENCY_US)" 40000 "SMB2_READ LATENCY_US"

# The failed open: the server's status, named.
e=$(journal_wait FUNCTION=SMB2_CREATE COMM=cat SMB_STATUS=STATUS_OBJECT_NAME_NOT_FOUND | head -1)
log "failed create: $e"
assert_eq "$(journal_field "$e" PID)" "$cat_pid" "PID of the cat"

# errors = yes: with a threshold no request reaches, a failed request is
# still logged, a successful one is not.
sed -i 's/^threshold = 30ms$/threshold = 100s/' conf
grep -c '^threshold = 100s' conf | grep -qx 2 || fail "conf not rewritten"
kill -HUP "$AGENT_PID"
waited=0
until grep -q 'reload: applied: ' "$AGENT_LOG"; do
	((waited++ < 60)) || fail "no reload in the agent log"
	sleep 1
done
journal_mark
stat "$d/new" >/dev/null
cat "$d/missing2" 2>/dev/null & cat_pid=$!
wait $cat_pid || true
e=$(journal_wait FUNCTION=SMB2_CREATE FILE=missing2 | head -1)
log "failed create below the threshold: $e"
assert_eq "$(journal_field "$e" SMB_STATUS)" STATUS_OBJECT_NAME_NOT_FOUND "SMB_STATUS below the threshold"
assert_eq "$(journal_field "$e" PID)" "$cat_pid" "PID of the second cat"
assert_eq "$(journal_field "$e" THRESHOLD_US)" 100000000 "THRESHOLD_US after the reload"
# The stat ran first: its entries, if any, are in by now.
assert_eq "$(journal_count LAYER=smb2 FILE=new)" 0 "successful requests logged below the threshold"

# Every request is counted under its command, fast ones too.
journal_mark
kill -USR1 "$AGENT_PID"
e=$(journal_wait FUNCTION=SMB2_CREATE MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac | head -1)
log "summary: $e"
assert_eq "$(journal_field "$e" LAYER)" smb2 "LAYER of the summary"
assert_ge "$(journal_field "$e" COUNT)" 4 "SMB2_CREATE summary COUNT"

agent_stop
rm -rf "$d"
