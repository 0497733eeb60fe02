# BPF programs of one tracer, for bench/run (host) and bench/vm/*.sh (guest).
# shellcheck shell=bash
#
# bpftool cannot name a program's owner everywhere (no pids on Debian's
# build), so a tracer's programs are those that appeared while it started:
# prog_ids_before FILE before starting it, prog_ids_new FILE once it is
# ready (a JSON array of ids). Ids are compared as numbers: the set
# difference is jq's, as text tools want a text order that ids crossing a
# power of ten do not have.

prog_ids_before() {
	bpftool -j prog show | jq -c '[.[].id]' >"$1"
}

# prog_ids_new FILE [NAME_REGEX]: only programs whose name matches, when
# other users of the machine may load programs at the same time.
prog_ids_new() {
	bpftool -j prog show | jq -c --slurpfile old "$1" --arg re "${2:-.}" \
		'[.[] | select(.name != "BEGIN" and (.name | test($re))) | .id] - $old[0]'
}

# prog_stats IDS_JSON: "RUN_TIME_NS RUN_CNT PROGS" summed over the programs
# whose ids are in the JSON array (needs kernel.bpf_stats_enabled=1).
prog_stats() {
	bpftool -j prog show | jq -r --argjson ids "$1" '
		[.[] | select(.id as $i | $ids | index($i))]
		| "\(map(.run_time_ns // 0) | add // 0) \(map(.run_cnt // 0) | add // 0) \(length)"'
}

# prog_stats_by_name IDS_JSON: "NAME RUN_TIME_NS RUN_CNT" per program name.
prog_stats_by_name() {
	bpftool -j prog show | jq -r --argjson ids "$1" '
		[.[] | select(.id as $i | $ids | index($i))]
		| group_by(.name)[]
		| "\(.[0].name) \(map(.run_time_ns // 0) | add) \(map(.run_cnt // 0) | add)"'
}
