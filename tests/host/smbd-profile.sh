#!/bin/bash
# SMBD_SMB2_* against Samba's own profile (smbstatus --profile, with smbd
# profiling level = on): the same requests counted, per command, and their
# summed latency the span Samba's profile times. The workload: an smbclient
# copy; smbtorture smb2.oplock.levelii501, whose client answers each break
# 500 ms late, so that smbd defers opens and dispatches them again; and
# smb2.lock.cancel, whose client cancels a blocking lock (SMB2 CANCEL has
# no reply). smbd and the clients run in a network namespace of their own
# (smbtorture's port 445 is free there); the agent's uprobes see it all.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

if [ "${1:-}" = --inner ]; then
	# in the namespace: $2 the samba directory, $3 the files to copy
	S=$2
	ip link set lo up
	setsid smbd -F --no-process-group -s "$S/smb.conf" </dev/null >"$S/smbd.out" 2>&1 &
	sp=$!
	stop() {
		kill "$sp" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$sp" 2>/dev/null || return 0; sleep 0.1; done
	}
	trap stop EXIT
	for _ in $(seq 150); do
		timeout 5 smbclient //127.0.0.1/share -N -c ls >/dev/null 2>&1 && break
		sleep 0.2
	done
	(cd "$3" && timeout 120 smbclient //127.0.0.1/share -N -c "prompt; mput *") >"$S/copy.out" 2>&1 || exit 1
	timeout 120 smbtorture //127.0.0.1/share -U% smb2.oplock.levelii501 >"$S/oplock.out" 2>&1 || exit 1
	timeout 120 smbtorture //127.0.0.1/share -U% smb2.lock.cancel >"$S/lock.out" 2>&1 || exit 1
	# every session's smbd has left and written its profile
	for _ in $(seq 150); do
		[ -z "$(pgrep -P "$sp" -x smbd)" ] && break
		sleep 0.2
	done
	smbstatus -s "$S/smb.conf" --profile >"$S/profile.out" 2>&1 || exit 1
	exit 0
fi

command -v smbtorture >/dev/null || fail "smbtorture (samba-testsuite) not installed"
journald_ensure
S=$TMP/samba
samba_conf "$S"
sed -i 's/^\[share\]$/smbd profiling level = on\n&/' "$S/smb.conf"
mkdir -p "$TMP/src"
for i in $(seq 200); do head -c 10240 /dev/urandom >"$TMP/src/f$i"; done
# summaries only at the end, and no slow-call entries: the totals are the point
printf '[agent]\nuser =\nthreshold = 1h\n[smb]\nenabled = no\n[histogram]\ninterval = 0\n[smbd]\nenabled = yes\n' \
	>"$TMP/conf"
agent_start -c "$TMP/conf"
pid=$AGENT_PID
unshare -n "$0" --inner "$S" "$TMP/src" || fail "workload failed: $(tail -5 "$S"/*.out)"
agent_stop
grep -q "smb2_cancel_count" "$S/profile.out" || fail "no profile: $(head -5 "$S/profile.out")"

journal_json MESSAGE_ID=ab8331e2b4474579a55840c9d3a77bac LAYER=smbd _PID="$pid" >"$TMP/summaries.json"
python3 - "$S/profile.out" "$TMP/summaries.json" <<'PY' || fail "smblat and smbstatus --profile disagree (above)"
import json, re, sys

samba = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*smb2_(\w+?)_(count|time):\s+(\d+)", line)
    if m:
        samba.setdefault(m.group(1), {})[m.group(2)] = int(m.group(3))
ours = {}
for line in open(sys.argv[2]):
    e = json.loads(line)
    f = e.get("FUNCTION", "")
    if f.startswith("SMBD_SMB2_"):
        c = ours.setdefault(f, [0, 0.0])
        c[0] += int(e["COUNT"])
        c[1] += float(e["TOTAL_US"])
# Samba's names of the commands whose FUNCTION differs
names = {"find": "QUERY_DIRECTORY"}
bad = []
for cmd, v in sorted(samba.items()):
    n, t = v.get("count", 0), v.get("time", 0)
    f = "SMBD_SMB2_" + names.get(cmd, cmd.upper())
    on, ot = ours.get(f, [0, 0.0])
    print("%-28s smbstatus %6d requests %12d us   smblat %6d requests %12.0f us  %+6.1f %%"
          % (f, n, t, on, ot, 100.0 * (ot - t) / t if t else 0))
    if n != on:
        bad.append("%s: %d requests, smbstatus counts %d" % (f, on, n))
        continue
    if cmd == "cancel":
        continue  # no handler smbd exports: smblat times its dispatch (smblat-fields(7))
    # Samba's span starts just before the handler's entry and ends in
    # smbd_smb2_request_reply, after smbd_smb2_request_done_ex's entry: a
    # few microseconds per request longer than smblat's, never shorter
    slack = 0.05 * t + 50 * n
    if ot > t + slack or ot < t - slack:
        bad.append("%s: %.0f us, smbstatus %d us" % (f, ot, t))
for f in ("SMBD_SMB2_CREATE", "SMBD_SMB2_WRITE", "SMBD_SMB2_CLOSE", "SMBD_SMB2_LOCK", "SMBD_SMB2_BREAK",
          "SMBD_SMB2_CANCEL"):
    if ours.get(f, [0])[0] == 0:
        bad.append("no %s request counted" % f)
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
echo "ok"
