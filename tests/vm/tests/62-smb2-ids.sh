#!/bin/bash
# SMB2 requests end to end on a slow unlink (20 ms netem): each SMB2_*
# entry carries the session, tree and message ids of its header, and where
# its time went (before the send, the round trip, until the caller woke),
# the parts adding up to LATENCY_US; the unlink's entry sums the split of
# the requests it waited on (adding up to SMB2_WIRE_US). The smbd layer traces the server in the same
# guest: its SMBD_SMB2_* entry for the very request has the same session
# and message id, and server time <= round trip <= client time.
. "$VM_DIR/lib.sh"

cat >conf <<CONF
[agent]
threshold = 30ms
user =
kernel_stack = no
[histogram]
interval = 0
[smb2]
enabled = yes
threshold = 30ms
[smbd]
enabled = yes
threshold = 0
CONF
d=$SMB_MNT/ids.$$
mkdir -p "$d"
echo x >"$d/victim"

# The width of the histogram bucket holding us microseconds (a quarter of
# its power of two of nanoseconds), in microseconds, rounded up.
bucket_width_us() {
	local ns=$(($1 * 1000)) p=1
	while ((p * 2 <= ns)); do p=$((p * 2)); done
	echo $(((p / 4 + 999) / 1000))
}

# split_check ENTRY WHAT [FIELD]: SMB2_SEND_US + SMB2_ROUNDTRIP_US +
# SMB2_WAKE_US within a bucket's width of FIELD (default LATENCY_US).
split_check() {
	local send rtt wake lat sum diff w f=${3:-LATENCY_US}
	send=$(journal_field "$1" SMB2_SEND_US)
	rtt=$(journal_field "$1" SMB2_ROUNDTRIP_US)
	wake=$(journal_field "$1" SMB2_WAKE_US)
	lat=$(journal_field "$1" "$f")
	[[ $send =~ ^[0-9]+$ && $rtt =~ ^[0-9]+$ && $wake =~ ^[0-9]+$ ]] ||
		fail "$2: split not numeric: send '$send' roundtrip '$rtt' wake '$wake'"
	sum=$((send + rtt + wake))
	diff=$((sum > lat ? sum - lat : lat - sum))
	w=$(bucket_width_us "$lat")
	log "$2: $f $lat = send $send + roundtrip $rtt + wake $wake ($sum, off by $diff us, bucket width $w us)"
	((diff <= w)) || fail "$2: split sums to $sum us, $f $lat (bucket width $w us)"
	echo "$rtt"
}

agent_start -c conf
if why=$(smb2_unavailable "$AGENT_LOG"); then
	skip "$why"
fi
grep -q 'cannot read the request layout' "$AGENT_LOG" && fail "smbd layer without the header ids: $(grep smbd "$AGENT_LOG")"
journal_mark
netem_on 20
rm "$d/victim" & rm_pid=$!
wait $rm_pid
netem_off

e=$(journal_wait FUNCTION=INODE_OP_UNLINK COMM=rm | head -1)
log "unlink: $e"
assert_eq "$(journal_field "$e" PID)" "$rm_pid" "PID of the unlink"
# the requests of a compound overlap: their split adds up to their summed
# latency, SMB2_WIRE_US, which may exceed the unlink's own
split_check "$e" "unlink (its requests summed)" SMB2_WIRE_US >/dev/null

# Every SMB2 request rm sent for the unlink: ids, split, and the server's entry.
journal_query LAYER=smb2 COMM=rm "_PID=$AGENT_PID" >requests.json
n=0
while IFS= read -r c; do
	[ -n "$c" ] || continue
	fn=$(journal_field "$c" FUNCTION)
	ses=$(journal_field "$c" SMB_SESSION_ID)
	tree=$(journal_field "$c" SMB_TREE_ID)
	mid=$(journal_field "$c" SMB_MID)
	lat=$(journal_field "$c" LATENCY_US)
	[[ $ses =~ ^0x[0-9a-f]{16}$ && $ses != 0x0000000000000000 ]] || fail "$fn SMB_SESSION_ID: '$ses'"
	[[ $tree =~ ^0x[0-9a-f]{8}$ ]] || fail "$fn SMB_TREE_ID: '$tree'"
	[[ $mid =~ ^[0-9]+$ ]] || fail "$fn SMB_MID: '$mid'"
	[[ $(journal_field "$c" SMB_CREDIT_CHARGE) =~ ^[0-9]+$ ]] || fail "$fn SMB_CREDIT_CHARGE"
	[[ $(journal_field "$c" SMB_CREDITS_GRANTED) =~ ^[0-9]+$ ]] || fail "$fn SMB_CREDITS_GRANTED"
	rtt=$(split_check "$c" "$fn mid $mid")
	# the server's entry for the same request: the join is on the ids (smbd
	# names its handlers its own way: SMB2_QUERY_INFO is SMBD_SMB2_GETINFO)
	s=$(journal_wait LAYER=smbd SMB_SESSION_ID="$ses" SMB_MID="$mid" | head -1)
	srv=$(journal_field "$s" LATENCY_US)
	log "$fn mid $mid session $ses tree $tree: $(journal_field "$s" FUNCTION) $srv us <= roundtrip $rtt us <= client $lat us"
	[[ "$(journal_field "$s" FUNCTION)" == SMBD_SMB2_* ]] || fail "smbd entry for mid $mid: $(journal_field "$s" FUNCTION)"
	assert_eq "$(journal_field "$s" SMB_TREE_ID)" "$tree" "SMB_TREE_ID the server saw for mid $mid"
	[[ "$(journal_field "$s" COMM)" == smbd* ]] || fail "$(journal_field "$s" FUNCTION) from $(journal_field "$s" COMM)"
	assert_ge "$rtt" "$srv" "roundtrip of $fn mid $mid against the server's time"
	assert_ge "$lat" "$rtt" "client time of $fn mid $mid against its roundtrip"
	n=$((n + 1))
done <requests.json
assert_ge "$n" 2 "SMB2 requests of rm joined with the server's"

agent_stop
rm -rf "$d"
