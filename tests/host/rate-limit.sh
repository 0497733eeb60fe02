#!/bin/bash
# rate_limit's burst (smblat.conf(5)): 20 slow calls at once with
# rate_limit = 5 write about 10 entries when rate_burst is not given (twice
# the limit), about 5 with rate_burst = 0 (as many as the limit), and every
# other call is counted as suppressed in the LOST entry at exit.
# And a flood of one FUNCTION, a hundred times the limit, does not hide the
# rare slow call of another.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

journald_ensure
prog="$TMP/slowprog-$$"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
mapfile -t zeros < <(printf '0\n%.0s' $(seq 20))

# write_conf AGENT_LINES PROBE_LINES: every call of the probes at threshold
# 0, and no layer's calls beside them (the bucket is shared)
write_conf() {
	printf '[agent]\nthreshold = 0\nuser =\n%s\n' "$1" >"$TMP/smblat.conf"
	printf '[%s]\nenabled = no\n' smb smb2 block smbd >>"$TMP/smblat.conf"
	printf '[histogram]\ninterval = 0\n%s\n' "$2" >>"$TMP/smblat.conf"
}

# burst BURST_LINE MIN MAX: 20 calls at once write MIN to MAX-1 entries
burst() {
	local label="RATE_${RANDOM}_$$" written suppressed
	write_conf "rate_limit = 5
$1" "[probe $label]
target = $prog:slow_call"
	agent_start -c "$TMP/smblat.conf"
	"$prog" "${zeros[@]}" >/dev/null
	agent_stop

	written=$(journal_json "FUNCTION=$label" MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 | wc -l)
	suppressed=$(lost_of "$label" suppressed)
	echo "${1:-no rate_burst}: written $written suppressed $suppressed"
	[ "$written" -ge "$2" ] || fail "rate_limit = 5, ${1:-no rate_burst}: wrote $written entries, expected at least $2"
	[ "$written" -lt "$3" ] || fail "rate_limit = 5, ${1:-no rate_burst}: wrote $written entries, expected fewer than $3"
	[ $((written + suppressed)) -eq 20 ] || fail "written $written + suppressed $suppressed != 20 calls"
}

burst "rate_burst = 0" 5 10
burst "" 10 20

# --- a flood beside a quiet FUNCTION ---------------------------------------
flood="$TMP/floodprog-$$"
cp "$BUILD_ROOT/tests/floodprog" "$flood"
fl="RATEFLOOD_$$"
ql="RATEQUIET_$$"
write_conf "rate_limit = 100" "[probe $fl]
target = $flood:fast_call
[probe $ql]
target = $prog:slow_call"
agent_start -c "$TMP/smblat.conf"
# 100 us a call: 10,000 a second for a minute at most, a hundred times the limit
"$flood" 600000 100 >/dev/null &
flood_pid=$!
# the flood has used the burst (200) once its entries are in the journal
for _ in $(seq 300); do
	[ "$(journal_json "FUNCTION=$fl" MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 | wc -l)" -ge 200 ] && break
	sleep 0.1
done
"$prog" 0 0 0 >/dev/null
kill -0 "$flood_pid" 2>/dev/null || fail "the flood ended before the quiet calls"
kill "$flood_pid"
wait "$flood_pid" 2>/dev/null || true
agent_stop
quiet=$(journal_json "FUNCTION=$ql" MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 | wc -l)
flooded=$(journal_json "FUNCTION=$fl" MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 | wc -l)
echo "flood: $flooded written, $(lost_of "$fl" suppressed) suppressed; quiet: $quiet written, $(lost_of "$ql" suppressed) suppressed"
[ "$(lost_of "$fl" suppressed)" -gt 0 ] || fail "the flood was not held back: the test proves nothing"
[ "$quiet" -eq 3 ] || fail "a flood of $fl hid the quiet calls: $quiet of 3 written"
echo ok
