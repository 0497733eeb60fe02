#!/bin/bash
# Why an SMB2 CREATE is slow, read off a flame graph as the Samba talks do,
# under the shipped configuration: the agent dropped to the smblat user,
# Debian's smbd (no frame pointers) run by root, 1,000 files copied to it.
# The syscalls smbd makes, counted per user stack, name the request's
# handler (smbd_smb2_request_process_create) above the syscall, every frame
# of the C library and of Samba's libraries symbolized or named by its file,
# fewer than 1 % of the frames a bare address; the SVG drawn by a browser,
# its search for the handler colouring frames.
# a mount namespace of its own: the overlay of /etc below is this test's alone
if [ -z "${SMBLAT_FLAME_NS:-}" ]; then
	export SMBLAT_FLAME_NS=1
	exec unshare --mount --propagation private "$0" "$@"
fi
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

command -v chromium >/dev/null || fail "chromium not installed (tests/packages.txt)"

smbd_cleanup() {
	smbd_stop
	[ -z "$AGENT_PID" ] || kill "$AGENT_PID" 2>/dev/null || true
	umount /etc 2>/dev/null || true
	umount "$TMP/ov" 2>/dev/null || true
	cleanup
}
trap smbd_cleanup EXIT

journald_ensure
shipped_user

port=$((20000 + $$ % 20000))
S="$TMP/samba"
smbd_start "$S" "$port"

cat >"$TMP/smblat.conf" <<CONF
[agent]
user = smblat
threshold = 1h
[smb]
enabled = no
[histogram]
interval = 0
[smbd]
enabled = yes
vfs = no
[syscalls]
enabled = yes
select = smbd
stacks = yes
CONF
# the SVG is written at exit, by the smblat user
chmod 0755 "$TMP"
install -d -o smblat "$TMP/out"
agent_start -c "$TMP/smblat.conf" --folded --stacks --svg "$TMP/out/run.svg"
uid=$(awk '/^Uid:/ {print $3}' "/proc/$AGENT_PID/status")
[ "$uid" = "$(id -u smblat)" ] || fail "agent runs as uid $uid, not smblat"

files=1000
mkdir "$TMP/src"
for i in $(seq "$files"); do echo "$i" >"$TMP/src/f$i"; done
timeout 300 smbclient "//127.0.0.1/share" -p "$port" -N \
	-c "prompt off; lcd $TMP/src; mput f*" >"$TMP/client.out" 2>&1 ||
	fail "smbclient: $(tail -3 "$TMP/client.out")"
copied=$(find "$S/share" -name 'f*' | wc -l)
[ "$copied" -eq "$files" ] || fail "$copied of $files files copied"
agent_stop

# the counted stacks of smbd's openat: "smbd;frame;...;SYSCALL_OPENAT COUNT"
grep -E "^smbd;.*;SYSCALL_OPENAT [0-9]+$" "$TMP/agent.out" >"$TMP/openat" ||
	fail "no counted SYSCALL_OPENAT stack of smbd: $(tail -5 "$TMP/agent.err")"
grep ";smbd_smb2_request_process_create;" "$TMP/openat" >"$TMP/create" ||
	fail "no openat stack through smbd_smb2_request_process_create: $(head -3 "$TMP/openat")"
calls=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/create")
echo "openat under the CREATE handler: $calls calls in $(wc -l <"$TMP/create") stacks"
[ "$calls" -ge "$files" ] || fail "$calls openat calls under the CREATE handler, $files files created"
head -c 600 "$TMP/create"
echo
grep -q ";smbd_smb2_request_dispatch;" "$TMP/create" || fail "the handler's stacks do not come through the dispatch"

# frames that are a bare address (0x..., or a file's +0x offset), over every smbd stack, weighed by calls
grep -E "^smbd;.* [0-9]+$" "$TMP/agent.out" | python3 -c '
import re, sys
total = bare = filed = 0
for line in sys.stdin:
    stack, n = line.rsplit(" ", 1)
    for f in stack.split(";")[1:]:
        total += int(n)
        if re.match(r"^(0x[0-9a-f]+|.*\+0x[0-9a-f]+)$", f):
            bare += int(n)
        elif re.match(r"^\[[^]]*\]$", f) and not f.startswith("[unwind"):
            filed += int(n)
print("%d of %d frames a bare address (%.3f %%); %d named by their file alone (no symbol there: %.1f %%)"
      % (bare, total, 100.0 * bare / max(total, 1), filed, 100.0 * filed / max(total, 1)))
sys.exit(0 if total and bare * 100 < total else 1)
' || fail "1 % or more of the frames are bare addresses"

# the SVG, drawn by a browser: frames, and the search for the handler colouring some
[ -s "$TMP/out/run.svg" ] || fail "no SVG written"
grep -q "smbd_smb2_request_process_create" "$TMP/out/run.svg" || fail "the handler is not in the SVG"
browser() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$(mktemp -d "$TMP/chromium.XXXXXX")" "$@" 2>>"$TMP/chromium.err"
}
browser --window-size=1200,800 --screenshot="$TMP/plain.png" "file://$TMP/out/run.svg" >/dev/null
browser --window-size=1200,800 --screenshot="$TMP/search.png" \
	"file://$TMP/out/run.svg?s=smbd_smb2_request_process_create" >/dev/null
warm=$(python3 "$SOURCE_ROOT/tests/pngpixels.py" "$TMP/plain.png" warm)
magenta=$(python3 "$SOURCE_ROOT/tests/pngpixels.py" "$TMP/search.png" 230,0,230~4)
echo "browser: $warm frame pixels, $magenta pixels matching the handler"
[ "$warm" -gt 5000 ] || fail "the browser drew no frames ($warm pixels of the palette)"
[ "$magenta" -gt 500 ] || fail "the search for the handler coloured nothing ($magenta pixels)"
echo "PASS"
