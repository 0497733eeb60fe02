# Helpers for smblat guest tests (tests/vm/tests/*.sh). Source it first:
#
#     . "$VM_DIR/lib.sh"
#
# The guest runner starts each test as `bash -eu TEST` in a fresh temporary
# working directory, with SMBLAT, SMB_MNT, EXT4_MNT, KVER, KSERIES, LOG_DIR,
# TEST_NAME, VM_DIR and JOURNAL_CURSOR set. See tests/vm/README.md.
# shellcheck shell=bash

set -eu -o pipefail -o errtrace
shopt -s inherit_errexit

: "${LOG_DIR:?LOG_DIR is not set (run tests through tests/vm/run)}"
: "${SMBLAT:?SMBLAT is not set}"
JOURNAL_CURSOR=${JOURNAL_CURSOR:-}
AGENT_PID=
AGENT_LOG=$LOG_DIR/agent.log

_vm_note_reason() {
	# The first recorded reason is the one reported.
	[ -s "$LOG_DIR/fail-reason" ] || printf '%s\n' "$*" >"$LOG_DIR/fail-reason"
}

_vm_on_err() {
	local rc=$1 where=$2 cmd=$3
	_vm_note_reason "$where: '$cmd' exited with status $rc"
}
trap '_vm_on_err $? "${BASH_SOURCE[0]##*/}:$LINENO" "$BASH_COMMAND"' ERR

# fail MSG...: report MSG as the reason of the failure and end the test.
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	_vm_note_reason "$*"
	exit 1
}

# skip REASON...: end the test as skipped. REASON names what this kernel
# lacks (the feature, and the kernel version or option that has it); it
# becomes the reason on the SKIP line. Only for what no agent could do here,
# never for a shortcoming of the agent.
skip() {
	[ $# -gt 0 ] || fail "skip needs a reason"
	printf 'SKIP: %s\n' "$*" >&2
	printf '%s\n' "$*" >"$LOG_DIR/skip-reason"
	exit 77
}

# log MSG...: timestamped progress line in the test log.
log() {
	printf '[%(%T)T.%s] %s\n' "${EPOCHREALTIME%[.,]*}" "${EPOCHREALTIME: -6:3}" "$*" >&2
}

_vm_int() {
	[[ $1 =~ ^-?[0-9]+$ ]] || fail "not an integer: '$1'"
}

# assert_ge A B MSG: fail with MSG unless integer A >= integer B.
assert_ge() {
	[ $# -ge 2 ] || fail "assert_ge needs A B [MSG]"
	_vm_int "$1"
	_vm_int "$2"
	if ! (($1 >= $2)); then
		fail "${3:-assertion failed}: $1 < $2"
	fi
}

# assert_eq A B MSG: fail with MSG unless the strings A and B are equal.
assert_eq() {
	[ $# -ge 2 ] || fail "assert_eq needs A B [MSG]"
	[ "$1" = "$2" ] || fail "${3:-assertion failed}: '$1' != '$2'"
}

# now_ms: wall clock in milliseconds (no fork).
now_ms() {
	local us=${EPOCHREALTIME/[.,]/}
	echo $((us / 1000))
}

# netem_on MS: delay every packet on lo by MS milliseconds (an SMB round
# trip over lo then takes about 2*MS).
netem_on() {
	[ $# -eq 1 ] || fail "netem_on needs MS"
	_vm_int "$1"
	tc qdisc replace dev lo root netem delay "${1}ms" || fail "tc netem failed"
}

# netem_off: remove the delay again (no error if none was set).
netem_off() {
	tc qdisc del dev lo root >/dev/null 2>&1 || true
}

# agent_start ARGS...: run "$SMBLAT" ARGS in the background, stdout and
# stderr appended to $LOG_DIR/agent.log; wait (AGENT_READY_TIMEOUT, default
# 120 s) for a line matching "ready" in that log. Fails the test if the
# agent exits first or never gets ready. Sets AGENT_PID.
agent_start() {
	[ -z "$AGENT_PID" ] || fail "agent_start: agent already running (pid $AGENT_PID)"
	[ -x "$SMBLAT" ] || fail "agent binary $SMBLAT missing or not executable (build it first)"
	log "starting agent: $SMBLAT $*"
	echo "== $(date +%T.%3N) start: $SMBLAT $*" >>"$AGENT_LOG"
	local start_line
	start_line=$(wc -l <"$AGENT_LOG")
	"$SMBLAT" "$@" </dev/null >>"$AGENT_LOG" 2>&1 &
	AGENT_PID=$!
	echo "$AGENT_PID" >"$LOG_DIR/agent.pid"
	local timeout=${AGENT_READY_TIMEOUT:-120} t0 rc
	t0=$(now_ms)
	while :; do
		if awk -v s="$start_line" 'NR > s && /ready/ { f = 1 } END { exit !f }' "$AGENT_LOG"; then
			log "agent ready (pid $AGENT_PID) after $(($(now_ms) - t0)) ms"
			return 0
		fi
		if ! kill -0 "$AGENT_PID" 2>/dev/null; then
			rc=0
			wait "$AGENT_PID" || rc=$?
			AGENT_PID=
			fail "agent exited with status $rc before it was ready (see agent.log)"
		fi
		(($(now_ms) - t0 < timeout * 1000)) || break
		sleep 0.1
	done
	fail "agent not ready after $timeout s (see agent.log)"
}

# agent_stop: SIGTERM the agent, wait up to AGENT_STOP_TIMEOUT (default
# 180) seconds, fail unless it exits with status 0. Detaching many fentry
# programs waits for RCU grace periods, which take long under TCG.
agent_stop() {
	[ -n "$AGENT_PID" ] || fail "agent_stop: no agent running"
	local pid=$AGENT_PID rc=0 t0 limit=${AGENT_STOP_TIMEOUT:-180}
	AGENT_PID=
	kill -TERM "$pid" 2>/dev/null || true
	t0=$(now_ms)
	while kill -0 "$pid" 2>/dev/null && (($(now_ms) - t0 < limit * 1000)); do
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "== $(date +%T.%3N) still running $limit s after SIGTERM; SIGKILL" >>"$AGENT_LOG"
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		fail "agent did not exit within $limit s of SIGTERM"
	fi
	wait "$pid" || rc=$?
	echo "== $(date +%T.%3N) exit status $rc, $(($(now_ms) - t0)) ms after SIGTERM" >>"$AGENT_LOG"
	[ "$rc" = 0 ] || fail "agent exited with status $rc after SIGTERM"
	log "agent stopped (exit 0) $(($(now_ms) - t0)) ms after SIGTERM"
}

# agent_log_wait PATTERN N: waits (30 s) until N lines of the agent's log match PATTERN (ERE).
agent_log_wait() {
	for _ in $(seq 150); do
		[ "$(grep -cE "$1" "$AGENT_LOG" || true)" -ge "$2" ] && return 0
		sleep 0.2
	done
	fail "agent did not log '$1' ($2 times): $(grep 'smb:' "$AGENT_LOG" | tail -3)"
}

# smb_unlink_slow LABEL: an unlink on the share under 20 ms of netem delay
# must give an INODE_OP_UNLINK entry of 20 ms or more.
smb_unlink_slow() {
	journal_mark
	echo x >"$SMB_MNT/slow-unlink.$$"
	netem_on 20
	rm "$SMB_MNT/slow-unlink.$$"
	netem_off
	e=$(journal_wait FUNCTION=INODE_OP_UNLINK | head -1)
	assert_ge "$(journal_field "$e" LATENCY_US)" 20000 "LATENCY_US $1"
}

# journal_mark: make later journal_* calls see only entries logged from now
# on. Each test starts with a mark taken just before it ran.
# Why the smb2 layer cannot run, from the agent's words in file $1, on a
# kernel without cifs's BTF (5.10: the mid functions are inlined and no
# field of a mid can be read); nothing, and non-zero, anywhere else, where
# an unavailable smb2 layer is a failure.
smb2_unavailable() {
	local why
	[ -e /sys/kernel/btf/cifs ] && return 1
	why=$(grep -m1 -oE "smb2: layer unavailable: .*|layer smb2 .* waiting: .*" "$1") || return 1
	echo "no cifs module BTF (CONFIG_DEBUG_INFO_BTF_MODULES, Linux 5.11); ${why#*: }"
}

journal_mark() {
	local msg c t0
	msg="mark $TEST_NAME $$ $EPOCHREALTIME"
	logger -t smblat-vm -- "$msg"
	t0=$(now_ms)
	while (($(now_ms) - t0 < 30000)); do
		c=$(journalctl --no-pager -q -t smblat-vm -n 1 -o export "MESSAGE=$msg" |
			sed -n 's/^__CURSOR=//p')
		if [ -n "$c" ]; then
			JOURNAL_CURSOR=$c
			return 0
		fi
		sleep 0.1
	done
	fail "journal_mark: marker did not reach the journal"
}

# Prints "$1" and a newline even when the reader went away early (e.g.
# `journal_wait ... | head -1` with more than a pipe buffer of entries):
# with pipefail, SIGPIPE here would fail the test.
_vm_print() {
	local old
	old=$(trap -p PIPE)
	trap '' PIPE
	printf '%s\n' "$1" 2>/dev/null || true
	eval "${old:-trap - PIPE}"
}

# journal_query MATCH...: print (JSON, one entry per line) the smblat
# entries since the last mark that satisfy all journalctl MATCHes
# (FIELD=VALUE). Prints nothing if there are none.
journal_query() {
	local args=(--no-pager -q -o json -t smblat)
	# --cursor, not --after-cursor: with matches, systemd 252's
	# --after-cursor also drops the first matching entry. The cursor points
	# at a smblat-vm marker, which never matches -t smblat.
	[ -z "$JOURNAL_CURSOR" ] || args+=(--cursor "$JOURNAL_CURSOR")
	local out
	out=$(journalctl "${args[@]}" "$@") || fail "journalctl ${args[*]} $* failed"
	[ -z "$out" ] || _vm_print "$out"
}

# journal_wait MATCH... [--timeout S]: poll until at least one smblat entry
# since the last mark satisfies the MATCHes (default timeout 30 s), print
# those entries as JSON lines; fail the test on timeout.
journal_wait() {
	local timeout=30 matches=() out t0
	while [ $# -gt 0 ]; do
		case $1 in
		--timeout) timeout=$2; shift 2 ;;
		--timeout=*) timeout=${1#*=}; shift ;;
		*) matches+=("$1"); shift ;;
		esac
	done
	_vm_int "$timeout"
	t0=$(now_ms)
	while :; do
		out=$(journal_query "${matches[@]}")
		if [ -n "$out" ]; then
			_vm_print "$out"
			return 0
		fi
		(($(now_ms) - t0 < timeout * 1000)) || break
		sleep 0.2
	done
	fail "no smblat journal entry matching '${matches[*]}' within $timeout s"
}

# journal_count MATCH...: number of smblat entries since the last mark that
# satisfy the MATCHes.
journal_count() {
	local out
	out=$(journal_query "$@")
	if [ -z "$out" ]; then
		echo 0
	else
		printf '%s\n' "$out" | wc -l
	fi
}

# journal_field JSONLINE FIELD: value of FIELD in one JSON journal entry
# (as printed by journal_wait/journal_query); empty if absent. Binary
# fields come out as their bytes, repeated fields one value per line.
journal_field() {
	[ $# -eq 2 ] || fail "journal_field needs JSONLINE FIELD"
	[ -n "$1" ] || fail "journal_field $2: empty journal entry"
	printf '%s\n' "$1" | jq -r --arg f "$2" '
		.[$f] // empty
		| if type == "array" then
			if (length > 0 and (.[0] | type) == "number") then implode
			else map(if type == "array" then implode else tostring end) | .[] end
		  else tostring end' || fail "journal_field $2: not a JSON journal entry: ${1:0:200}"
}

# elapsed_ms CMD...: run CMD, print how long it took in milliseconds.
elapsed_ms() {
	local t0 t1
	t0=${EPOCHREALTIME/[.,]/}
	"$@" >&2
	t1=${EPOCHREALTIME/[.,]/}
	echo $(((t1 - t0) / 1000))
}

# On exit: do not leave an agent running for the next test.
_vm_exit() {
	if [ -n "$AGENT_PID" ] && kill -0 "$AGENT_PID" 2>/dev/null; then
		kill -TERM "$AGENT_PID" 2>/dev/null || true
		sleep 1
		kill -KILL "$AGENT_PID" 2>/dev/null || true
	fi
}
trap _vm_exit EXIT

# cap_eff_idle: the effective capabilities of the dropped agent between
# attaches: none, or CAP_BPF (bit 39) alone where the kernel refuses bpf()
# as a whole to a process without it (before 5.19 with unprivileged BPF
# disabled), which the agent keeps to read its counters and says at start.
cap_eff_idle() {
	if grep -q "CAP_BPF stays effective as user" "$AGENT_LOG"; then
		echo 0000008000000000
	else
		echo 0000000000000000
	fi
}
