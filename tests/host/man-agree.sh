#!/bin/bash
# The man pages say what the agent does, where a run can show it: the
# headers the terminal prints, the layers a LAYER field can name, what the
# block layer's entries name as KERNEL_FUNCTION, how smbd's functions are
# attached, what smblat(8)'s smbd EXAMPLE traces, the first screen's line
# per layer (issue 25 item 20).
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

command -v man >/dev/null || fail "man is not installed (tests/packages.txt)"
# page NAME: the rendered page as one line of words
page() {
	LC_ALL=C MANWIDTH=200 man -E ascii -l "$SOURCE_ROOT/man/$1" 2>/dev/null | col -b | tr -s ' \t\n' '   '
}
page smblat.8 >"$TMP/smblat.8.txt"
page smblat-fields.7 >"$TMP/fields.7.txt"
page smblat.conf.5 >"$TMP/conf.5.txt"
says() { grep -qF -- "$2" "$TMP/$1.txt"; }

prog="$TMP/slowprog-$$"
cp "$BUILD_ROOT/tests/slowprog" "$prog"
printf '[agent]\nuser =\n[smb]\nenabled = no\n[smbd]\nenabled = no\n[block]\nenabled = no\n' >"$TMP/conf"

# header ARGS...: the first line the agent prints on the terminal with ARGS
header() {
	timeout 60 "$SMBLAT" -c "$TMP/conf" -d 1 "$@" 2>"$TMP/err" | head -1 | tr -s ' ' ' ' | sed 's/ $//'
}

# 1. the terminal's headers, as smblat(8) names them
for args in "--stdout --layers func -f $prog:slow_call" "-f $prog:slow_call --stdout" \
	"-f $prog:slow_call --stdout -u 5" "-j -f $prog:slow_call" "-j -f $prog:slow_call -a 1"; do
	# shellcheck disable=SC2086
	h=$(header $args)
	[ -n "$h" ] || fail "no header with $args: $(cat "$TMP/err")"
	case "$args" in
	-j*) says smblat.8 "$h" || fail "smblat(8) does not name the CSV header of $args: $h" ;;
	*-u*)
		for col in $h; do says smblat.8 "$col" || fail "smblat(8) does not name column $col of $args: $h"; done ;;
	*) says smblat.8 "$h" || fail "smblat(8) does not name the header of $args: $h" ;;
	esac
	echo "header of $args: $h"
done
printf '[agent]\nuser =\n[smb]\nenabled = no\n[smbd]\nenabled = no\n[block]\nenabled = yes\n' >"$TMP/block.conf"
h=$(timeout 60 "$SMBLAT" -c "$TMP/block.conf" --stdout -d 1 2>"$TMP/err" | head -1 | tr -s ' ' ' ' | sed 's/ $//')
[ -n "$h" ] || fail "no header of --stdout: $(cat "$TMP/err")"
says smblat.8 "$h" || fail "smblat(8) does not name the plain terminal header: $h"

# 2. every layer a LAYER field can name is in smblat-fields(7)
rc=0
"$SMBLAT" --layers nosuchlayer -d 1 2>"$TMP/err" >/dev/null || rc=$?
[ "$rc" -ne 0 ] || fail "--layers nosuchlayer accepted"
layers=$(sed -n 's/.*unknown layer "nosuchlayer" (\(.*\)).*/\1/p' "$TMP/err" | tr -d ',')
[ -n "$layers" ] || fail "no list of layers in: $(cat "$TMP/err")"
lpar=$(python3 -c '
import sys
t = open(sys.argv[1]).read()
t = t[t.index("SLOW CALL ENTRIES"):]
print(t[t.index(" LAYER ") + 7:t.index(" KERNEL_FUNCTION ")])' "$TMP/fields.7.txt")
for l in $layers; do
	grep -qE "(^| )$l[ ,;]" <<<"$lpar" || fail "smblat-fields(7) LAYER does not name $l: $lpar"
done
echo "layers: $layers"

# 3. the block layer's KERNEL_FUNCTION: the tracepoints it times between
"$SMBLAT" -c "$TMP/block.conf" --list-probes >"$TMP/list" 2>"$TMP/err" || fail "--list-probes: $(cat "$TMP/err")"
kf=$(awk '$1 == "BLOCK_READ" {print $3}' "$TMP/list")
[ -n "$kf" ] || fail "no BLOCK_READ in --list-probes: $(cat "$TMP/list")"
says fields.7 "For the block layer, the tracepoints a request is timed between: $kf" ||
	fail "smblat-fields(7) KERNEL_FUNCTION does not name the block layer's $kf"

# 4. smbd's functions: how they are attached, as smblat(8) says
if command -v smbd >/dev/null; then
	printf '[agent]\nuser =\n[smb]\nenabled = no\n[block]\nenabled = no\n[smbd]\nenabled = yes\n' >"$TMP/smbd.conf"
	"$SMBLAT" -c "$TMP/smbd.conf" --list-probes >"$TMP/list" 2>"$TMP/err" || fail "--list-probes smbd: $(cat "$TMP/err")"
	be=$(awk '$1 == "SMBD_SMB2_CREATE" {print $(NF - 1)}' "$TMP/list")
	[ -n "$be" ] || fail "SMBD_SMB2_CREATE not listed: $(grep SMBD_SMB2 "$TMP/list" | head -3)"
	grep -qF -- "--list-probes: uprobe-multi or uprobe" "$TMP/smblat.8.txt" && [[ "$be" =~ ^uprobe(-multi)?$ ]] ||
		fail "smbd's functions are attached with $be; smblat(8) says uprobe-multi or uprobe"
	echo "smbd: $be"
	# 5. the EXAMPLE: its SMB2 requests, no VFS operation without vfs = yes
	timeout 120 "$SMBLAT" --stdout --layers smbd -d 1 1 >/dev/null 2>"$TMP/err" || true
	line=$(grep -E "smbd: [0-9]+ VFS operations and [0-9]+ SMB2 commands" "$TMP/err") ||
		fail "no smbd attach line: $(cat "$TMP/err")"
	[[ "$line" =~ smbd:\ 0\ VFS\ operations\ and\ [1-9] ]] || fail "the EXAMPLE attaches: $line"
	says smblat.8 "Every SMB2 request of the Samba server over 1 ms, also of smbd processes started later (and every VFS operation with vfs = yes" ||
		fail "smblat(8)'s EXAMPLE does not say what smblat --stdout --layers smbd 1 traces ($line)"
fi

# 5b. an SMB2 NOTIFY smbd answers asynchronously: SMBD_SMB2_NOTIFY names the
#     tree of the request it received, no async id, as smblat-fields(7) says
if command -v smbd >/dev/null && command -v smbclient >/dev/null; then
	port=$((20000 + ($$ + 4099) % 20000))
	samba_conf "$TMP/samba" "$port"
	mkdir -p "$TMP/samba/share/watched"
	cat >"$TMP/notify.conf" <<CONF
[agent]
user =
[smb]
enabled = no
[block]
enabled = no
[smbd]
enabled = yes
include = SMBD_SMB2_NOTIFY
threshold = 0
CONF
	agent_start -c "$TMP/notify.conf"
	apid=$AGENT_PID
	setsid smbd -F --no-process-group -s "$TMP/samba/smb.conf" >"$TMP/smbd.out" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		timeout 5 smbclient //127.0.0.1/share -p "$port" -N -c ls >/dev/null 2>&1 && break
		sleep 0.2
	done
	timeout 60 smbclient //127.0.0.1/share -p "$port" -N -c 'notify watched' >"$TMP/notify.out" 2>&1 &
	npid=$!
	# the change that answers the pending NOTIFY, until its entry is there
	e=
	for i in $(seq 100); do
		: >"$TMP/samba/share/watched/f$i"
		e=$(journal_json FUNCTION=SMBD_SMB2_NOTIFY "_PID=$apid" MESSAGE_ID=a48f35af155e4887a8d221f2a9c1c250 | head -1)
		[ -n "$e" ] && break
		sleep 0.2
	done
	kill "$npid" 2>/dev/null || true
	agent_stop
	kill "$spid" 2>/dev/null || true
	[ -n "$e" ] || fail "no SMBD_SMB2_NOTIFY entry: $(cat "$TMP/notify.out")"
	echo "notify: $(jq -c '{SMB_TREE_ID, SMB_ASYNC_ID, RETVAL}' <<<"$e")"
	[ -n "$(field SMB_TREE_ID <<<"$e")" ] && [ -z "$(field SMB_ASYNC_ID <<<"$e")" ] ||
		fail "SMBD_SMB2_NOTIFY: $(jq -c '{SMB_TREE_ID, SMB_ASYNC_ID}' <<<"$e")"
	says fields.7 "SMBD_SMB2_* entries have it also when smbd answered asynchronously" &&
		says fields.7 "SMBD_SMB2_* entries have none." ||
		fail "smblat-fields(7) does not say SMBD_SMB2_* entries keep SMB_TREE_ID and have no SMB_ASYNC_ID"
fi

# 6. the first screen: a line for every layer, also those the file turns off
timeout 120 script -qec "$SMBLAT -c $TMP/conf -d 1" /dev/null >"$TMP/screen" 2>&1 || true
for l in $layers; do
	grep -qE "^ +$l +" "$TMP/screen" || fail "the first screen has no line for layer $l: $(cat "$TMP/screen")"
done
says smblat.8 "prints a first screen: one line per layer" || fail "smblat(8) does not describe the first screen"
# ... each saying its state in one column, however long a layer's name or
# description (issue 25 item 21: syscalls' and smb2's lines stood aside)
cols=$(python3 -c '
import re, sys
cols = set()
for line in open(sys.argv[1]).read().replace("\r", "").splitlines():
    m = re.match(r"  [a-z0-9]+ .*? (traced:|waiting:|NOT traced:|off:)", line)
    if m:
        cols.add(m.start(1))
print(" ".join(str(c) for c in sorted(cols)))' "$TMP/screen")
[ -n "$cols" ] && [ "${cols// /}" = "$cols" ] || fail "the first screen's states start in columns $cols: $(cat "$TMP/screen")"
echo "ok"
