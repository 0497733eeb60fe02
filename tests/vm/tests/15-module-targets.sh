#!/bin/bash
# module:function targets: a module of the running kernel is a module even
# when its name starts with "lib" (libarc4:arc4_crypt is no library); one not
# loaded yet is waited for and attached when it loads.
. "$VM_DIR/lib.sh"

printf '[agent]\nuser =\n[smb]\nenabled = no\n' >conf

# 1. a lib* name of the running kernel's modules: taken as the module
mod=libarc4
modinfo "$mod" >/dev/null 2>&1 || fail "no $mod module in this kernel: the test needs one named lib*"
modprobe -r "$mod" 2>/dev/null || true
if [ ! -e /sys/module/$mod ]; then
	"$SMBLAT" -c conf --list-probes -f "$mod:arc4_crypt" >list.out 2>list.err || fail "--list-probes: $(cat list.err)"
	cat list.out list.err
	grep -E "^$mod:arc4_crypt +func +arc4_crypt \[$mod\] +- +module $mod not loaded; attached when it is$" list.out ||
		fail "$mod:arc4_crypt not taken as a module waiting to load: $(grep arc4 list.out)"
else
	log "$mod is loaded and in use here: only its listing as a module is checked"
	"$SMBLAT" -c conf --list-probes -f "$mod:arc4_crypt" >list.out 2>list.err || true
	grep -E "^$mod:arc4_crypt +func +arc4_crypt \[$mod\] " list.out || fail "$mod:arc4_crypt not taken as a module: $(cat list.out)"
fi

# 2. a module loaded after the agent started: waited for, then attached and traced
umount "$SMB_MNT"
for _ in $(seq 50); do rmmod cifs 2>rmmod.err && break; sleep 0.2; done
[ ! -e /sys/module/cifs ] || fail "rmmod cifs: $(cat rmmod.err)"
agent_start -c conf --stdout -f cifs:cifs_statfs 0
grep -q "ready: 0 functions attached (waiting: func: module not loaded)" "$AGENT_LOG" ||
	fail "no line saying what the agent waits for: $(cat "$AGENT_LOG")"
modprobe cifs
mount -t cifs //127.0.0.1/share "$SMB_MNT" -o guest,vers=3.0
agent_log_wait "func: probe cifs:cifs_statfs: module cifs loaded: attached" 1
stat -f "$SMB_MNT" >/dev/null
for _ in $(seq 100); do grep -q " cifs:cifs_statfs" "$AGENT_LOG" && break; sleep 0.2; done
grep " cifs:cifs_statfs" "$AGENT_LOG" | grep -q stat || fail "no row for the statfs of stat -f: $(cat "$AGENT_LOG")"
agent_stop
