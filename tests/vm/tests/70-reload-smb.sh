#!/bin/bash
# SIGHUP on the smb layer: an op excluded by a reload is detached (its calls
# no longer seen), included again it is attached again, the layer disabled
# detaches everything; counts of before the reloads stay in the summary.
. "$VM_DIR/lib.sh"

# conf SMB_EXTRA: [smb] with threshold 0 plus SMB_EXTRA lines. A few ops
# only: attaching and detaching all of them takes minutes under TCG. Links
# are counted system-wide: block and smbd (auto: the guest has an smbd) are
# off; smb2 stays auto, which follows [smb], so its mid hooks count too.
OPS="FILE_READDIR FILE_WRITE_ITER FILE_OPEN INODE_OP_LOOKUP"
conf() {
	printf '[agent]\nthreshold = 20ms\nuser =\n[histogram]\ninterval = 1h\n[block]\nenabled = no\n[smbd]\nenabled = no\n[smb]\nthreshold = 0\n%s\n' "$1" >conf
	grep -q '^include' conf || echo "include = $OPS" >>conf
}

# hup PATTERN: SIGHUP, then wait for a reload line matching PATTERN.
hup() {
	local before
	before=$(grep -c "reload:" "$AGENT_LOG" || true)
	kill -HUP "$AGENT_PID"
	for _ in $(seq 300); do
		if [ "$(grep -c "reload:" "$AGENT_LOG" || true)" -gt "$before" ] &&
			grep "reload:" "$AGENT_LOG" | tail -n +$((before + 1)) | grep -qE -- "$1"; then
			log "$(grep "reload:" "$AGENT_LOG" | tail -1)"
			return 0
		fi
		sleep 0.2
	done
	fail "no reload line matching /$1/"
}

# Attachments: BPF links, and probes attached through a perf event (5.10
# has no perf event links; where a kernel has them, each one shows in both
# lists, so perf_event links are left out of the first).
links() {
	local l p
	l=$(bpftool link show | grep -E '^[0-9]+: ' | grep -vc ': perf_event ' || true)
	p=$(bpftool perf show 2>/dev/null | grep -c 'prog_id' || true)
	echo $((l + p))
}

d=$SMB_MNT/reload.$$
mkdir -p "$d"
# Links are counted system-wide: let an agent of an earlier test finish
# taking its links down (fentry links go one grace period at a time).
for _ in $(seq 300); do
	[ "$(links)" = 0 ] && break
	sleep 0.2
done
assert_eq "$(links)" 0 "BPF links left by earlier tests"
conf ""
agent_start -c conf
journal_mark
ls "$d" >/dev/null
journal_wait FUNCTION=FILE_READDIR COMM=ls >/dev/null
links_all=$(links)
# per-function attachments: an excluded op takes its entry and exit links down; one
# kprobe.multi pair for all ops (backend auto where the kernel has it) stays,
# the op in it dormant
per_op=2
grep -q "cifs operations attached (kprobe-multi)" "$AGENT_LOG" && per_op=0

conf "exclude = FILE_READDIR"
hup "reload: applied: .* 1 layer function detached"
assert_eq "$(links)" "$((links_all - per_op))" "BPF links after excluding one op"
journal_mark
ls "$d" >/dev/null
echo x >"$d/marker"     # a call still traced, to know the agent has caught up
journal_wait FUNCTION=FILE_WRITE_ITER >/dev/null
assert_eq "$(journal_count FUNCTION=FILE_READDIR)" 0 "FILE_READDIR entries while excluded"

conf ""
hup "reload: applied: .* [1-9][0-9]* attached"
assert_eq "$(links)" "$links_all" "BPF links after including the op again"
journal_mark
ls "$d" >/dev/null
journal_wait FUNCTION=FILE_READDIR COMM=ls >/dev/null

conf "enabled = no"
hup "reload: applied: .* [1-9][0-9]* layer functions detached"
assert_eq "$(links)" 0 "BPF links with the smb layer disabled"
conf ""
hup "reload: applied: .* [1-9][0-9]* attached"
assert_eq "$(links)" "$links_all" "BPF links after enabling the layer again"
agent_stop
rm -rf "$d"
# Readdir calls before and after the reloads add up in the exit summary.
s=$(journalctl -t smblat -o json --cursor "$JOURNAL_CURSOR" FUNCTION=FILE_READDIR \
	MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac | tail -1)
[ -n "$s" ] || fail "no FILE_READDIR summary at exit"
assert_ge "$(journal_field "$s" COUNT)" 2 "FILE_READDIR COUNT across reloads"
