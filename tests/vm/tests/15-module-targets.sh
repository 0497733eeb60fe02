#!/bin/bash
# module:function targets: a module of the running kernel is a module even
# when its name starts with "lib" (libcrc32c:crc32c is no library); one not
# loaded yet is waited for and attached when it loads.
. "$VM_DIR/lib.sh"

mod=libcrc32c
modinfo "$mod" >/dev/null 2>&1 || fail "no $mod module in this kernel: the test needs one named lib*"
modprobe -r "$mod" 2>/dev/null || true
[ ! -e /sys/module/$mod ] || fail "$mod is loaded and in use: the test needs it unloaded"

printf '[agent]\nuser =\n[smb]\nenabled = no\n' >conf
"$SMBLAT" -c conf --list-probes -f "$mod:crc32c" >list.out 2>list.err || fail "--list-probes: $(cat list.err)"
cat list.out list.err
grep -E "^$mod:crc32c +func +crc32c \[$mod\] +- +module $mod not loaded; attached when it is$" list.out ||
	fail "$mod:crc32c not taken as a module waiting to load: $(grep crc32c list.out)"

agent_start -c conf --stdout -f "$mod:crc32c"
grep -q "nothing attached yet; waiting (func: module not loaded)" "$AGENT_LOG" ||
	fail "no line saying what the agent waits for: $(cat "$AGENT_LOG")"
modprobe "$mod"
agent_log_wait "func: probe $mod:crc32c: module $mod loaded: attached" 1
agent_stop
