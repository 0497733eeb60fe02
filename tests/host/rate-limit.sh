#!/bin/bash
# rate_limit's burst (smblat.conf(5)): 20 slow calls at once with
# rate_limit = 5 write about 10 entries when rate_burst is not given (twice
# the limit), about 5 with rate_burst = 0 (as many as the limit), and every
# other call is counted as suppressed in the LOST entry at exit.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

journald_ensure
prog="$TMP/slowprog-$$"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
mapfile -t zeros < <(printf '0\n%.0s' $(seq 20))

# burst BURST_LINE MIN MAX: 20 calls at once write MIN to MAX-1 entries
burst() {
	local label="RATE_${RANDOM}_$$" written suppressed
	cat >"$TMP/smblat.conf" <<CONF
[agent]
threshold = 0
user =
rate_limit = 5
$1
[smb]
enabled = no
# the bucket is shared: no other layer's calls at threshold 0
[smb2]
enabled = no
[block]
enabled = no
[smbd]
enabled = no
[histogram]
interval = 0
[probe $label]
target = $prog:slow_call
CONF
	agent_start -c "$TMP/smblat.conf"
	"$prog" "${zeros[@]}" >/dev/null
	agent_stop

	written=$(journal_json "FUNCTION=$label" MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 | wc -l)
	suppressed=$(journal_json MESSAGE_ID=007f72e0507d4b96b52049ce539ad083 | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    e = json.loads(line)
    for item in e.get("LOST_FUNCTIONS", "").split():
        name, _, counts = item.rpartition(":")
        if name == sys.argv[1]:
            n += int(counts.split("/")[1])
print(n)
' "$label")
	echo "${1:-no rate_burst}: written $written suppressed $suppressed"
	[ "$written" -ge "$2" ] || fail "rate_limit = 5, ${1:-no rate_burst}: wrote $written entries, expected at least $2"
	[ "$written" -lt "$3" ] || fail "rate_limit = 5, ${1:-no rate_burst}: wrote $written entries, expected fewer than $3"
	[ $((written + suppressed)) -eq 20 ] || fail "written $written + suppressed $suppressed != 20 calls"
}

burst "rate_burst = 0" 5 10
burst "" 10 20
echo ok
