#!/bin/bash
# The service protocol against a real notify socket: READY=1 after attach,
# STATUS= lines, WATCHDOG=1 pings from the event loop, RELOADING=1/READY=1
# around SIGHUP, STOPPING=1 on SIGTERM.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

journald_ensure
# the block layer attaches on any kernel: something to trace
printf '[agent]\nuser =\nthreshold = 10ms\n[histogram]\ninterval = 0\n[block]\nenabled = yes\n' >"$TMP/smblat.conf"
python3 - "$SMBLAT" "$TMP" <<'PY'
import os, signal, socket, subprocess, sys, time

agent, tmp = sys.argv[1], sys.argv[2]
path = os.path.join(tmp, "notify.sock")
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
sock.settimeout(0.2)
env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="1000000")
p = subprocess.Popen([agent, "-c", os.path.join(tmp, "smblat.conf")], env=env,
                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "agent.err"), "w"))
msgs = []
def drain(seconds):
    end = time.time() + seconds
    while time.time() < end:
        try:
            msgs.append((time.time(), sock.recv(4096).decode()))
        except socket.timeout:
            pass
def seen(word):
    return [t for t, m in msgs if word in m.split("\n")]
def wait_for(cond, seconds=30):
    end = time.time() + seconds
    while not cond() and time.time() < end:
        drain(0.1)
    return cond()
def fail(why):
    print("FAIL:", why, "; messages:", [m for _, m in msgs])
    p.kill()
    sys.exit(1)

# start-up takes what the machine's load makes of it: the pings count from READY=1
for _ in range(300):
    drain(0.1)
    if seen("READY=1"):
        break
if not seen("READY=1"):
    fail("no READY=1 in 30 s")
ready = seen("READY=1")[0]
if not any(m.startswith("STATUS=") or "\nSTATUS=" in m for _, m in msgs):
    fail("no STATUS=")
# WATCHDOG_USEC=1s: sd-event pings every half period; on a loaded machine
# later, but they keep coming (systemd would kill an agent that stopped)
pings = lambda: [t for t in seen("WATCHDOG=1") if t > ready]
if not wait_for(lambda: len(pings()) >= 3):
    fail("only %d WATCHDOG=1 pings in 30 s after READY=1" % len(pings()))
p.send_signal(signal.SIGHUP)
if not wait_for(lambda: seen("RELOADING=1") and len(seen("READY=1")) >= 2):
    fail("SIGHUP without RELOADING=1 then READY=1 in 30 s")
p.send_signal(signal.SIGTERM)
rc = p.wait(timeout=30)
drain(0.5)
if rc != 0:
    fail("exit status %d" % rc)
if not seen("STOPPING=1"):
    fail("no STOPPING=1")
print("ok:", len(msgs), "messages,", len(pings()), "watchdog pings")
PY
