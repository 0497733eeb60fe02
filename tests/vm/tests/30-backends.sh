#!/bin/bash
# Every attach backend the kernel offers works, chosen by feature probing,
# and --list-probes shows what went where. By default one kprobe.multi link
# where the kernel takes module functions in one, else fentry.
. "$VM_DIR/lib.sh"

"$SMBLAT" --list-probes -c /dev/null >list 2>err || { cat err; fail "--list-probes failed"; }
cat list >&2
default=$(awk '$1 == "INODE_OP_UNLINK" && $NF == "attached" { print $(NF - 1) }' list)
[ -n "$default" ] || fail "INODE_OP_UNLINK not attached by default"
grep -qE "^FILE_READDIR +smb +cifs_readdir \[cifs\] +$default +attached" list ||
	fail "FILE_READDIR not attached with $default as INODE_OP_UNLINK"
attached=$(grep -c ' attached$' list)
assert_ge "$attached" 30 "cifs operations attached"

works=
for be in fentry kprobe-multi kprobe; do
	printf '[agent]\nthreshold = 20ms\nuser =\nbackend = %s\n[smb]\ninclude = INODE_OP_UNLINK FILE_READDIR\n[histogram]\ninterval = 0\n' "$be" >conf
	"$SMBLAT" --list-probes -c conf >list 2>err || { cat err; fail "--list-probes --backend $be failed"; }
	cat list err >&2
	if grep -qE "^INODE_OP_UNLINK .* $be +attached" list; then
		echo x >"$SMB_MNT/be.$$"
		agent_start -c conf
		journal_mark
		netem_on 20
		rm "$SMB_MNT/be.$$"
		ls "$SMB_MNT" >/dev/null
		netem_off
		e=$(journal_wait FUNCTION=INODE_OP_UNLINK | head -1)
		assert_ge "$(journal_field "$e" LATENCY_US)" 20000 "$be: LATENCY_US"
		journal_field "$e" STACK | grep -q 'vfs_unlink' || fail "$be: STACK lacks vfs_unlink"
		agent_stop
		works="$works $be"
	else
		# Allowed only with a reason on the line (e.g. kprobe.multi without module support).
		grep -E "^INODE_OP_UNLINK " list | grep -qvE ' attached$' || fail "$be: no status for INODE_OP_UNLINK"
		log "$be not available here: $(grep -E '^INODE_OP_UNLINK ' list)"
		[ "$be" = kprobe ] && fail "single kprobes must work on a distribution kernel"
	fi
done
case " $works " in
*" kprobe-multi "*) want=kprobe-multi ;;
*" fentry "*) want=fentry ;;
*) want=kprobe ;;
esac
[ "$default" = "$want" ] || fail "default backend $default, want $want (working here:$works)"
