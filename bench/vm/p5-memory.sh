#!/bin/bash
# P5 (guest): memory of the agent with the shipped configuration, idle
# after start-up (every cifs operation attached), and what it is made of
# (/proc/PID/smaps: heap, the ring buffer mapping, other anonymous memory,
# libraries); then after a small-file copy with every call slow (10 us
# threshold), whose events are decoded and written.
. "$BENCH_DIR/vm/bench-lib.sh"

# VmRSS VmHWM, and the Rss of each kind of mapping, in KiB
mem() {
	local pid=$1
	awk '/^(VmRSS|VmHWM):/ { printf "%s %s ", $1, $2 }' "/proc/$pid/status"
	awk '/^[0-9a-f]+-[0-9a-f]+ / {
		n = $6
		if (n == "[heap]") k = "heap"
		else if (n ~ /bpf-map/) k = "bpf_maps"
		else if (n ~ /\.so/ || n ~ /smblat$/) k = "files"
		else if (n == "" ) k = "anon"
		else k = "other"
	}
	/^Rss:/ { r[k] += $2 }
	END { for (k in r) printf "%s %d ", k, r[k] }' "/proc/$pid/smaps"
}

# the shipped file, and no user switch (the guest has no smblat user)
cp "$REPO/conf/smblat.conf" conf
printf '[agent]\nuser =\n' >>conf
agent_start -c conf
sleep 5
result "p5_guest idle $(mem "$AGENT_PID")"
make_tree src 200
printf '[agent]\nuser =\nthreshold = 10us\n' >conf2
agent_stop
agent_start -c conf2
cp -r src "$SMB_MNT/p5"
rm -rf "$SMB_MNT/p5"
sleep 2
result "p5_guest busy $(mem "$AGENT_PID")"
agent_stop
