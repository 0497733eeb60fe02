#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Start-up and stop time of a service speaking the sd_notify protocol.

usage: notify-time.py [--hold S] [--timeout S] -- COMMAND...

Runs COMMAND with NOTIFY_SOCKET set to a private socket, and prints one line
    ready_ms R stop_ms S rc C status TEXT
R: exec to READY=1; S: SIGTERM (sent S seconds after READY=1) to exit;
C: exit status; TEXT: the last STATUS= before SIGTERM.
"""
import argparse, os, signal, socket, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--hold", type=float, default=1.0)
ap.add_argument("--timeout", type=float, default=300.0)
ap.add_argument("--log", default=os.devnull)
ap.add_argument("cmd", nargs="+")
a = ap.parse_args()

tmp = tempfile.mkdtemp(prefix="notify-time.")
path = os.path.join(tmp, "notify.sock")
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
sock.settimeout(0.05)
env = dict(os.environ, NOTIFY_SOCKET=path)
env.pop("WATCHDOG_USEC", None)
log = open(a.log, "a")
t0 = time.monotonic()
p = subprocess.Popen(a.cmd, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
status, ready = "", None
while ready is None:
    try:
        for line in sock.recv(65536).decode(errors="replace").split("\n"):
            if line == "READY=1":
                ready = time.monotonic()
            elif line.startswith("STATUS="):
                status = line[7:]
    except socket.timeout:
        pass
    if ready is None and p.poll() is not None:
        print("error: exited with status %d before READY=1" % p.returncode, file=sys.stderr)
        sys.exit(1)
    if time.monotonic() - t0 > a.timeout:
        p.kill()
        print("error: no READY=1 within %.0f s" % a.timeout, file=sys.stderr)
        sys.exit(1)
end = time.monotonic() + a.hold
while time.monotonic() < end:
    try:
        for line in sock.recv(65536).decode(errors="replace").split("\n"):
            if line.startswith("STATUS="):
                status = line[7:]
    except socket.timeout:
        pass
t1 = time.monotonic()
p.send_signal(signal.SIGTERM)
try:
    rc = p.wait(timeout=a.timeout)
except subprocess.TimeoutExpired:
    p.kill()
    print("error: still running %.0f s after SIGTERM" % a.timeout, file=sys.stderr)
    sys.exit(1)
t2 = time.monotonic()
os.unlink(path)
os.rmdir(tmp)
print("ready_ms %d stop_ms %d rc %d status %s" %
      ((ready - t0) * 1000, (t2 - t1) * 1000, rc, status.replace(" ", "_")))
