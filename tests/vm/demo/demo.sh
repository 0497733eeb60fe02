#!/bin/bash
# ./run --demo, in the test rig's guest (tests/vm/README.md): a cifs mount of
# a loopback Samba share with 20 ms of netem on lo, a small workload under
# the agent with the default configuration (every layer enabled = auto, so
# smb, smb2, smbd and block all trace here), and the entries as journalctl
# shows them, in $LOG_DIR/demo.txt for the host to print.
. "$VM_DIR/lib.sh"

out=$LOG_DIR/demo.txt
# kprobe-multi: attaching some 70 fentry programs one by one takes tens of
# seconds under TCG, kprobe-multi attaches them in one go. smbd at 1 ms, so
# that the server's side of the client's slow calls shows.
printf '[agent]\nuser =\nbackend = kprobe-multi\n[histogram]\ninterval = 0\n[smbd]\nthreshold = 1ms\n' >conf
agent_start -c conf
journal_mark
netem_on 20
d=$SMB_MNT/demo
mkdir "$d"
echo "hello over SMB" >"$d/report.txt"
cat "$d/report.txt" >/dev/null
ls -l "$d" >/dev/null
mv "$d/report.txt" "$d/report-final.txt"
dd if=/dev/zero of="$d/data.bin" bs=256k count=4 conv=fsync status=none
rm "$d/data.bin"
rm -r "$d"
netem_off
# the workload's last call is in the journal: the others are before it
journal_wait FUNCTION=INODE_OP_RMDIR >/dev/null

unlink=$(journal_wait FUNCTION=INODE_OP_UNLINK FILE=data.bin | head -1)
end=$(journal_field "$unlink" END_REALTIME_USEC)
start=$((end - $(journal_field "$unlink" LATENCY_US)))
show() { journalctl -q --no-pager --no-hostname -t smblat --cursor "$JOURNAL_CURSOR" "$@"; }
{
	echo "== smblat on the terminal (agent defaults; every layer where it can trace)"
	grep -vE "^== " "$AGENT_LOG"
	echo
	echo "== journalctl -t smblat LAYER=smb: the SMB client's slow operations (20 ms netem on lo)"
	show -o short-precise LAYER=smb | sed 's/ smblat\[[0-9]*\]//'
	echo
	echo "== the rm of data.bin layer by layer: the client's unlink, the SMB2 requests it waited for,"
	echo "   smbd's side of them (its layer at 1 ms): each by when it ended after the unlink began"
	show -o json | jq -rs --argjson s "$start" --argjson e "$end" '
		[.[] | select(.END_REALTIME_USEC) | . + {end: (.END_REALTIME_USEC | tonumber)}
		 | select(.end >= $s and .end <= $e)] | sort_by(.end) | .[]
		| "  +\((.end - $s) / 1000 | floor | tostring | (" " * (4 - length)) + .) ms  \(.LAYER)\t\(.MESSAGE)"'
	echo
	echo "== journalctl -t smblat FUNCTION=INODE_OP_UNLINK FILE=data.bin -o verbose: every field"
	show -o verbose FUNCTION=INODE_OP_UNLINK FILE=data.bin | grep -vE '^ *_' || true
	echo
	echo "== $(show | wc -l) entries in all: journalctl -t smblat LAYER=smb2 (or smbd, block), -x for"
	echo "   the catalog text, -o json for shippers; smblat-fields(7) lists every field"
} >"$out"
