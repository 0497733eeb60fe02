#!/bin/bash
# The first run: ./run on a terminal, no configuration, on this machine
# (no cifs, no kprobes, no fentry): the layers are enabled by what the
# machine has (smbd and block where there is an smbd, smb and smb2 where
# cifs and a backend for kernel functions are), and the first screen says
# for every layer what is traced, what is not and why, once: the layer
# status lines go to the journal only. /etc is an overlay and journald a
# private one, in a mount namespace of the test's own.
. "${SOURCE_ROOT:?}/tests/lib-journald.sh"
journald_ns "$@"
. "${SOURCE_ROOT:?}/tests/lib-host.sh"
trap 'journald_private_cleanup; umount /etc "$TMP/ov" 2>/dev/null || true; cleanup' EXIT

# ./run creates the smblat user: not in the machine's /etc
mkdir -p "$TMP/ov"
mount -t tmpfs tmpfs "$TMP/ov"
mkdir -p "$TMP/ov/up" "$TMP/ov/work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$TMP/ov/up,workdir=$TMP/ov/work" /etc
journald_private_start
conf=$(sed -n 's/^#define SMBLAT_CONFIG_PATH "\(.*\)"$/\1/p' "$BUILD_ROOT/smblat-config.h")
[ ! -e "$conf" ] || mount --bind /dev/null "$conf"      # "no configuration"

# on a terminal (script(1) gives it one), for 3 seconds
export SMBLAT_BUILD_DIR=$BUILD_ROOT
rc=0
script -qec "$SOURCE_ROOT/run -d 3" "$TMP/typescript" >/dev/null </dev/null || rc=$?
tr -d '\r' <"$TMP/typescript" >"$TMP/screen"
cat "$TMP/screen"

has_smbd=0
for d in ${PATH//:/ } /usr/sbin /usr/local/samba/sbin; do [ -x "$d/smbd" ] && has_smbd=1; done
screen_line() { grep -E "^  $1 " "$TMP/screen" || fail "no line for the $1 layer on the first screen"; }
for l in smb smb2 block func smbd; do
	line=$(screen_line "$l")
	echo "$line" | grep -qE "^  $l +.+ (traced: [0-9]+ functions \(.+\)|waiting: .+|NOT traced: .+|off: .+)$" ||
		fail "the $l line does not say what is traced or why not: $line"
done
if [ ! -e /sys/module/cifs ] && [ ! -e /sys/bus/event_source/devices/kprobe ]; then
	screen_line smb | grep -qE "off: no (cifs module|backend)" || fail "smb: no reason: $(screen_line smb)"
fi
screen_line func | grep -q "off: no \[probe\] section" || fail "func: $(screen_line func)"
if [ "$has_smbd" = 1 ]; then
	[ "$rc" -eq 0 ] || fail "./run exited with $rc where smbd can be traced"
	screen_line smbd | grep -qE "traced: [1-9][0-9]* functions?" || fail "smbd present, not traced"
	screen_line block | grep -qE "traced: [1-9][0-9]* functions?" || fail "block not traced on an SMB server"
	grep -q "smblat: ready: " "$TMP/screen" || fail "no ready line"
else
	screen_line block | grep -q "off: no smbd" || fail "block without smbd: $(screen_line block)"
fi
# once: the layer lines went to the journal, not also to the terminal
! grep -qE "^smblat: (smb|smb2|block|func|smbd): " "$TMP/screen" ||
	fail "layer status lines on the terminal beside the first screen"
grep -q "^run: the SMB client at work where this machine has no cifs: ./run --demo$" "$TMP/screen" ||
	fail "./run does not point at --demo"
journalctl --sync
n=$(journalctl -q --no-pager -o json -t smblat --since "@$TEST_START" LAYER_STATE=off | wc -l)
[ "$n" -ge 2 ] || fail "$n layer-off entries in the journal (smb and smb2 at least)"
echo ok
