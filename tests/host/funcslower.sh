#!/bin/bash
# funcslower parity: one command, no [probe] section, traces a user function
# (and a USDT pair) and prints funcslower's columns on the terminal.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

prog="$TMP/slowprog-$$"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
target="$prog:slow_call"
# only so that no installed /etc/smblat/smblat.conf changes the run
printf '[agent]\nuser =\n' >"$TMP/base.conf"

# run_prog ARGS...: runs the workload, sets PROG_PID, keeps its own measures in prog.out
run_prog() {
	"$prog" "$@" >"$TMP/prog.out" &
	PROG_PID=$!
	wait "$PROG_PID"
}

# 1. -f -a -e -m: slow calls and the failed one, nothing else
agent_start -c "$TMP/base.conf" --stdout -f "$target" -a 1 -e -m 20
run_prog 5 30 13 45 2
agent_stop
cat "$TMP/agent.out"
header=$(sed -n 1p "$TMP/agent.out")
[ "$(echo $header)" = "TIME COMM PID LAT(ms) RVAL FUNC ARGS" ] || fail "header: $header"
rows=$(grep -F " $target " "$TMP/agent.out" || true)
# the 5 and 2 ms calls only if the machine stretched them past 20 ms
i=0
for ms in 5 30 13 45 2; do
	i=$((i + 1))
	n=$(echo "$rows" | awk -v a="$(printf '0x%x' "$ms")" '$7 == a' | grep -c . || true)
	[ "$n" -le 1 ] || fail "$n rows for the $ms ms call"
	[ "$(sed -n "${i}p" "$TMP/prog.out")" -ge 20000 ] || [ "$ms" = 13 ] || [ "$n" -eq 0 ] ||
		fail "a row for the $ms ms call: $rows"
done
# RVAL as slow_call's type (int, from its DWARF) reads it: -2, not the register's 0xfffffffe
for want in "30 30 0x1e" "13 -2 0xd" "45 45 0x2d"; do
	set -- $want
	ms=$1 rval=$2 args=$3
	line=$(echo "$rows" | awk -v a="$args" '$7 == a')
	[ -n "$line" ] || fail "no row for the $ms ms call: $rows"
	set -- $line
	[[ "$1" =~ ^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$ ]] || fail "TIME=$1 in: $line"
	[ "$2" = "$(basename "$prog" | cut -c1-15)" ] || fail "COMM=$2 in: $line"
	[ "$3" = "$PROG_PID" ] || fail "PID=$3, the program was $PROG_PID: $line"
	# LAT(ms) within [sleep, the program's own measure of the call]
	n=$(printf '%s\n' 5 30 13 45 2 | grep -nx "$ms" | cut -d: -f1)
	outer=$(sed -n "${n}p" "$TMP/prog.out")
	awk -v l="$4" -v ms="$ms" -v o="$outer" 'BEGIN { exit !(l >= ms && l * 1000 <= o + 1) }' ||
		fail "LAT(ms)=$4 for the $ms ms call (program measured $outer us): $line"
	[ "$5" = "$rval" ] || fail "RVAL=$5, expected $rval: $line"
	[ "$6" = "$target" ] || fail "FUNC=$6: $line"
	[ "$7" = "$args" ] || fail "ARGS=$7, expected $args: $line"
done

# 2. -u is the same threshold in microseconds, shown in microseconds; without -e the
#    fast failure is gone
agent_start -c "$TMP/base.conf" --stdout -f "$target" -u 20000
run_prog 13 30
agent_stop
header=$(head -1 "$TMP/agent.out")
[ "$(echo $header)" = "TIME COMM PID LAT(us) RVAL FUNC" ] || fail "-u header: $header"
rows=$(grep -F " $target" "$TMP/agent.out" || true)
echo "$rows" | awk '$5 == "30" && $4 >= 30000 && $4 !~ /\./' | grep -q . ||
	fail "-u 20000: no row for the 30 ms call in microseconds: $rows"
# the fast failure only if it took 20 ms anyway: no -e
[ "$(sed -n 1p "$TMP/prog.out")" -ge 20000 ] || ! echo "$rows" | awk '$5 == "-2"' | grep -q . ||
	fail "-u 20000 without -e: a row for the 13 ms failure: $rows"

# 3. --folded -U: flame graph lines only, "COMM;frames...;FUNC LATENCY_US"
agent_start -c "$TMP/base.conf" --stdout -f "$target" -U --folded 20
run_prog 30
agent_stop
cat "$TMP/agent.out"
[ "$(grep -c . "$TMP/agent.out")" -eq 1 ] || fail "--folded: one line expected on stdout"
line=$(cat "$TMP/agent.out")
[[ "$line" =~ ^slowprog-$$\;.+\;"$target"\ ([0-9]+)$ ]] || fail "--folded line: $line"
us=${BASH_REMATCH[1]}
[ "$us" -ge 30000 ] && [ "$us" -le "$(($(cat "$TMP/prog.out") + 1))" ] || fail "--folded latency $us us"

# 4. a USDT pair from the command line
if [ -x "$BUILD_ROOT/tests/usdtprog" ]; then
	uprog="$TMP/usdtprog-$$"
	cp "$BUILD_ROOT/tests/usdtprog" "$uprog"
	utarget="usdt:$uprog:usdtprog:op_start,op_end"
	agent_start -c "$TMP/base.conf" --stdout -f "$utarget" -a 2 -m 20
	"$uprog" 30 5 >/dev/null
	agent_stop
	rows=$(grep -F " $utarget " "$TMP/agent.out" || true)
	# the 5 ms op only where the machine stretched it to the threshold
	echo "$rows" | awk '$7 != "0x1e" && $4 < 20' | grep -q . && fail "usdt: a row under 20 ms: $rows"
	line=$(echo "$rows" | awk '$7 == "0x1e"')
	[ "$(echo "$line" | grep -c .)" -eq 1 ] || fail "usdt: expected one row for the 30 ms op: $(cat "$TMP/agent.out")"
	set -- $line
	[ "$5" = - ] && [ "$7 $8" = "0x1e 0x1" ] || fail "usdt row: $line"
fi

# 5. bad input: one line naming the problem, usage exit status
rc=0
"$SMBLAT" -c "$TMP/base.conf" --stdout -f "$target" -m 12abc 2>"$TMP/bad.err" || rc=$?
[ "$rc" -eq 2 ] || fail "-m 12abc exited with $rc"
grep -q '"12abc"' "$TMP/bad.err" || fail "-m 12abc: $(cat "$TMP/bad.err")"
rc=0
"$SMBLAT" -c "$TMP/base.conf" --stdout -f "$target" -m 5 7 2>"$TMP/bad.err" || rc=$?
[ "$rc" -eq 2 ] || fail "-m and MIN_MS together exited with $rc"
echo "ok"
