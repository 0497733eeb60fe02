#!/bin/bash
# errors= and RETVAL of user functions go by the return type their file's
# DWARF (or BTF) gives: a negative signed integer is a failure, however
# wide (-(1 << 40) too), a pointer or LONG_MAX never is, RETVAL reads as
# the type does and a void function has none; libc's malloc and strtol
# through its debug file likewise. Without type information errors = yes
# judges nothing and says so, and errors = negative, minus1 or null (the
# command line's --errors=) says what a failed call returns (issue 25
# items 2 and 20: the sign of the low 32 bits decided, RETVAL was raw hex).
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

journald_ensure
prog="$TMP/retprog-$$"
cp "$BUILD_ROOT/tests/retprog" "$prog"
printf '[agent]\nuser =\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n' >"$TMP/conf"
fns="ret_ptr ret_null ret_long_max ret_big_neg ret_int_neg ret_uint_max ret_void"
SLOW=a48f35af155e4887a8d221f2a9c1c250

# run_traced PROG ARGS...: the agent on PROG's functions, PROG run once
# (after the agent is ready); prints the slow-call entries of this agent
# as "FUNCTION REASON RETVAL" lines once the run's last call is in
run_traced() {
	local p=$1 f args=()
	shift
	for f in $fns; do args+=(-f "$p:$f"); done
	mkfifo "$TMP/go"
	"$p" w <"$TMP/go" >/dev/null &
	local pp=$!
	exec 3>"$TMP/go"
	agent_start -c "$TMP/conf" -p "$pp" "${args[@]}" "$@"
	local apid=$AGENT_PID
	echo go >&3
	exec 3>&-
	wait "$pp" || fail "$p failed"
	agent_stop
	rm -f "$TMP/go"
	journal_json "MESSAGE_ID=$SLOW" "_PID=$apid" |
		jq -r '[(.FUNCTION | sub(".*:"; "")), .REASON, (.RETVAL // "none")] | join(" ")' | sort
}

# 1. every call slow (threshold 0): RETVAL by the type
got=$(run_traced "$prog" 0)
echo "$got"
want="ret_big_neg slow -1099511627776
ret_int_neg slow -1
ret_long_max slow 9223372036854775807
ret_null slow 0x0
ret_ptr slow 0x7f95c2d06010
ret_uint_max slow 4294967295
ret_void slow none"
[ "$got" = "$want" ] || fail "RETVAL by type: got
$got
want
$want"

# 2. -e under a threshold no call reaches: the failures by type alone
got=$(run_traced "$prog" -e -m 10000)
echo "$got"
want="ret_big_neg error -1099511627776
ret_int_neg error -1"
[ "$got" = "$want" ] || fail "-e by type: got
$got
want
$want"

# 3. no type information (debug info stripped): errors = yes judges nothing and says so
stripped="$TMP/retprog-stripped-$$"
objcopy --strip-debug "$prog" "$stripped"
got=$(run_traced "$stripped" -e -m 10000)
[ -z "$got" ] || fail "-e without types flagged: $got"
grep -q "probe $stripped:ret_ptr: errors = yes: the return type of ret_ptr is not known" "$TMP/agent.err" ||
	fail "no word that errors = yes judges nothing without types: $(cat "$TMP/agent.err")"
# ... and the conventions do, on the functions that keep them, over the
# register as a long, or as an int when its upper half is zero: a pointer
# and LONG_MAX are no negative number, -(1 << 40) is
fns="ret_ptr ret_long_max ret_big_neg ret_int_neg"
got=$(run_traced "$stripped" --errors=negative -m 10000)
want="ret_big_neg error 0xffffff0000000000
ret_int_neg error 0xffffffff"
[ "$got" = "$want" ] || fail "--errors=negative without types: got
$got
want
$want"
got=$(run_traced "$stripped" --errors=minus1 -m 10000)
[ "$got" = "ret_int_neg error 0xffffffff" ] || fail "--errors=minus1 without types: $got"
fns="ret_ptr ret_null"
got=$(run_traced "$stripped" --errors=null -m 10000)
[ "$got" = "ret_null error 0x0" ] || fail "--errors=null without types: $got"
# the file's word too
printf '[probe NULLS]\ntarget = %s:ret_null\nerrors = null\nthreshold = 10s\n' "$stripped" >>"$TMP/conf"
fns=""
got=$(run_traced "$stripped" -f "$stripped:ret_ptr" -m 10000)
[ "$got" = "NULLS error 0x0" ] || fail "errors = null in the file: $got"
printf '[agent]\nuser =\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n' >"$TMP/conf"

# 4. libc: 40 malloc(1 MiB) and strtol's LONG_MAX are no failures
fns=""
got=$(run_traced "$prog" -f c:malloc -f c:strtol -e -m 10000)
[ -z "$got" ] || fail "libc calls flagged as failed: $got"
# libc's types from its debug file (libc6-dbg, tests/packages.txt)
grep -q "probe c:malloc: errors = yes: malloc returns void \* (DWARF)" "$TMP/agent.err" ||
	fail "malloc's return type not read from libc's debug file: $(grep "c:malloc" "$TMP/agent.err")"
! grep -q "probe c:strtol: errors = yes" "$TMP/agent.err" || fail "strtol (long) judged by no type"

# a bad convention on the command line: one line, exit 2
rc=0
"$SMBLAT" --errors=sometimes -f "$prog:ret_ptr" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "invalid --errors=sometimes" "$TMP/err" || fail "--errors=sometimes: exit $rc: $(cat "$TMP/err")"
echo "ok"
