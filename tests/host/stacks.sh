#!/bin/bash
# Stack counting: one function called from two call sites 300 and 100
# times gives exactly two stacks with those counts (folded output); the
# run's flame graph (--svg) drawn by a real browser, its frames there and
# its search working; and the same picture from the journal's entries
# (--flamegraph FUNCTION --since).
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

command -v chromium >/dev/null || fail "chromium not installed (tests/packages.txt)"
journald_ensure
prog="$TMP/stackprog-$$"
cp "$BUILD_ROOT/tests/stackprog" "$prog"
comm=$(basename "$prog" | cut -c1-15)
label="$prog:stack_target"
# no slow-call entries: a call the scheduler held past a threshold would be
# a folded line of its own beside the counted stacks
printf '[agent]\nuser =\nthreshold = 1h\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n' >"$TMP/conf"

# wait_for SECONDS CMD...: polls CMD every 0.1 s
wait_for() {
	local n=$(($1 * 10))
	shift
	for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
	return 1
}

# run_prog A B: the program's calls, then its stacks read (SIGUSR1: a
# summary) while it still runs, then its end
run_prog() {
	local in=$TMP/in.$1
	mkfifo "$in"
	"$prog" w "$1" "$2" <"$in" >"$TMP/prog.out" &
	local pp=$!
	exec 3>"$in"
	echo go >&3
	wait_for 30 grep -q done "$TMP/prog.out" || fail "stackprog did not run"
	kill -USR1 "$AGENT_PID"
	wait_for 30 "$3" || fail "no counted stacks after SIGUSR1: $(cat "$TMP/agent.out" "$TMP/agent.err")"
	echo end >&3
	exec 3>&-
	wait "$pp"
}

# 1. --folded --stacks: "COMM;frames;FUNCTION COUNT" lines
has_folded() { grep -q "^$comm;.*;$label [0-9]*$" "$TMP/agent.out"; }
agent_start -c "$TMP/conf" --folded --stacks --svg "$TMP/run.svg" -f "$label"
run_prog 300 100 has_folded
agent_stop
grep "^$comm;" "$TMP/agent.out" >"$TMP/mine" || true
cat "$TMP/mine"
[ "$(wc -l <"$TMP/mine")" -eq 2 ] || fail "expected two stacks, got $(wc -l <"$TMP/mine")"
grep -qE "^$comm;(.*;)?main;call_site_a;$label 300$" "$TMP/mine" || fail "no stack through call_site_a counted 300"
grep -qE "^$comm;(.*;)?main;call_site_b;$label 100$" "$TMP/mine" || fail "no stack through call_site_b counted 100"
grep -q "flame graph of [0-9]* stacks\? written to $TMP/run.svg" "$TMP/agent.err" || fail "no --svg line"

# 1b. one unit per stream (issue 25 item 5): with every call slow, the
#     folded lines on stdout are still the counted stacks alone, weighed by
#     calls (60 and 20), and the 80 slow calls go to stderr as lines of their
#     own, not as "COMM;frames;FUNCTION LATENCY_US" beside them
sed 's/^threshold = 1h$/threshold = 0/' "$TMP/conf" >"$TMP/conf0"
slow_lines() { [ "$(grep -c " $label" "$TMP/agent.err" || true)" -ge 80 ]; }
has_both() { has_folded && slow_lines; }
agent_start -c "$TMP/conf0" --folded --stacks -f "$label"
run_prog 60 20 has_both
agent_stop
grep "$label" "$TMP/agent.out" >"$TMP/mine0" || true
cat "$TMP/mine0"
[ "$(wc -l <"$TMP/mine0")" -eq 2 ] ||
	fail "--folded --stacks with threshold 0: $(wc -l <"$TMP/mine0") folded lines, want the 2 counted stacks"
grep -qE "^$comm;(.*;)?main;call_site_a;$label 60$" "$TMP/mine0" &&
	grep -qE "^$comm;(.*;)?main;call_site_b;$label 20$" "$TMP/mine0" ||
	fail "--folded --stacks with threshold 0: not the counted stacks 60 and 20"
echo "slow calls on stderr: $(grep -c " $label" "$TMP/agent.err")"

# 2. the SVG in a browser: frames drawn, and the search (?s=) colours the
#    matches and says their share (300 of 400 calls)
browser() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$(mktemp -d "$TMP/chromium.XXXXXX")" "$@" 2>>"$TMP/chromium.err"
}
browser --window-size=1200,500 --screenshot="$TMP/plain.png" "file://$TMP/run.svg" >/dev/null
browser --window-size=1200,500 --screenshot="$TMP/search.png" "file://$TMP/run.svg?s=call_site_a" >/dev/null
counts=$(python3 "$SOURCE_ROOT/tests/pngpixels.py" "$TMP/plain.png" warm 230,0,230~4)
warm=${counts%%$'\n'*}
magenta=${counts##*$'\n'}
echo "plain: $warm frame pixels, $magenta search pixels"
[ "$warm" -gt 5000 ] || fail "the browser drew no frames ($warm pixels of the palette)"
[ "$magenta" -eq 0 ] || fail "search colour without a search"
magenta=$(python3 "$SOURCE_ROOT/tests/pngpixels.py" "$TMP/search.png" 230,0,230~4)
echo "search: $magenta matched pixels"
[ "$magenta" -gt 2000 ] || fail "the search coloured nothing ($magenta pixels)"
browser --dump-dom "file://$TMP/run.svg?s=call_site_a" >"$TMP/dom.xml"
grep -o 'id="matched"[^<]*' "$TMP/dom.xml" | grep -q ">Matched: 75.0%" ||
	fail "search share: $(grep -o 'id="matched"[^<]*' "$TMP/dom.xml")"

# 3. journal entries of the counted stacks, and the flame graph from them
has_entries() { [ "$(journal_json FUNCTION="$label" MESSAGE_ID=29fff22de3004d9c8fdf70318b61193f | wc -l)" -ge 2 ]; }
agent_start -c "$TMP/conf" --stacks -f "$label"
run_prog 200 50 has_entries
agent_stop
journal_json FUNCTION="$label" MESSAGE_ID=29fff22de3004d9c8fdf70318b61193f | python3 -c '
import json, sys
for l in sys.stdin:
    e = json.loads(l)
    print(e["COUNT"], e["STACK_RANK"], e["STACKS"], e["STACKS_LOST"], e["STACK_FOLDED"])' >"$TMP/entries"
cat "$TMP/entries"
grep -qE "^200 1 2 0 .*;call_site_a;" "$TMP/entries" || fail "no first-ranked entry of 200 calls via call_site_a"
grep -qE "^50 2 2 0 .*;call_site_b;" "$TMP/entries" || fail "no second-ranked entry of 50 calls via call_site_b"
"$SMBLAT" --flamegraph "$TMP/journal.svg" --since -10min "$label" 2>"$TMP/fg.err" || fail "--flamegraph: $(cat "$TMP/fg.err")"
grep -q "call_site_a (200 calls, 80.00%)" "$TMP/journal.svg" || fail "journal flame graph lacks call_site_a's 200 calls"
grep -q "call_site_b (50 calls, 20.00%)" "$TMP/journal.svg" || fail "journal flame graph lacks call_site_b's 50 calls"
# nothing there: one clear line, non-zero
rc=0
"$SMBLAT" --flamegraph "$TMP/none.svg" "NO_SUCH_FUNCTION_$$" 2>"$TMP/none.err" || rc=$?
[ "$rc" -ne 0 ] && grep -q "no stacks of NO_SUCH_FUNCTION_$$ in the journal" "$TMP/none.err" ||
	fail "--flamegraph of nothing: rc $rc, $(cat "$TMP/none.err")"
echo "ok"
