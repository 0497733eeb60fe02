# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Entering a Debian root made by tests/roots/make, and an smbd inside it.
# See tests/roots/README.md.
#
#   . "$SOURCE_ROOT/tests/roots/lib.sh"
#   roots_ns "$@"                       # first: re-runs the script in a mount
#                                       # namespace of its own (optional)
#   lower=$(roots_make bookworm samba smbclient)
#   roots_open "$lower"                 # ROOT: a throwaway overlay of it
#   roots_exec smbd -V                  # a command inside ROOT
#   roots_spawn CMD... >out             # one in the background: ROOTS_PID
#   roots_smbd_start                    # smbd on 127.0.0.1:$ROOTS_SMBD_PORT
#   roots_smbclient -c 'put f'          # the root's smbclient against it
#   roots_smbd_stop
#   roots_close                         # also run at exit
#
# roots_open mounts a writable overlay of the cached root (the cache itself
# is never written) with /proc, /sys, /dev and /run bound in; the host
# kernel's uprobes and the host's (or the test's private) journald reach
# the processes inside. roots_open --run journal binds only the journal's
# sockets into an empty /run instead: maintainer scripts (apt-get install)
# then see no running init and cannot reach the host's (--run empty: not
# even the journal, as on a package build machine). One root is open at
# a time per shell. roots_close stops the smbd, kills whatever else still
# runs in the root, unmounts everything and removes the overlay; it runs
# from the EXIT trap set by roots_open, before the trap that was set
# already (a test that sets its own trap later calls it from there).
# roots_ns is the safety net: in a namespace of its own, nothing the test
# mounted outlives it, even when it is killed.

ROOTS_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=
ROOTS_TMP=
ROOTS_LOCK_FD=
ROOTS_SMBD_PID=
ROOTS_SMBD_PORT=
ROOTS_SMBD_DIR=
ROOTS_SMBD_SHARE=
ROOTS_ENV_PATH=/usr/sbin:/usr/bin:/sbin:/bin

roots_fail() {
	if declare -F fail >/dev/null; then
		fail "$@"
	fi
	echo "FAIL: $*" >&2
	exit 1
}

roots_ns() {
	[ -z "${SMBLAT_ROOTS_NS:-}${SMBLAT_JOURNALD_NS:-}" ] || return 0
	export SMBLAT_ROOTS_NS=1
	exec unshare --mount --propagation private "$0" "$@"
}

# roots_make RELEASE [PACKAGE...]: the cached root's directory.
roots_make() {
	"$ROOTS_LIB_DIR/make" "$@" || roots_fail "no $1 root with ${*:2}"
}

# roots_open [--run host|journal|empty] LOWER: sets ROOT.
roots_open() {
	local run=host
	if [ "${1:-}" = --run ]; then
		run=$2
		shift 2
	fi
	local lower=$1
	[ -z "$ROOT" ] || roots_fail "roots_open: $ROOT is still open"
	[ -x "$lower/usr/bin/env" ] || roots_fail "roots_open: $lower is not a root"
	case $run in host | journal | empty) ;; *) roots_fail "roots_open: --run host, journal or empty, not $run" ;; esac
	# the cache keeps this root as it is while it is open (tests/roots/make)
	exec {ROOTS_LOCK_FD}>"$lower.lock"
	flock -s "$ROOTS_LOCK_FD"
	ROOTS_TMP=$(mktemp -d /tmp/smblat-root.XXXXXX)
	mkdir "$ROOTS_TMP/upper" "$ROOTS_TMP/work" "$ROOTS_TMP/root"
	ROOT=$ROOTS_TMP/root
	if [ -z "${ROOTS_TRAP_SET:-}" ]; then
		ROOTS_TRAP_SET=1
		local prev
		prev=$(trap -p EXIT | sed "s/^trap -- '\(.*\)' EXIT$/\1/")
		# shellcheck disable=SC2064
		trap "roots_close; $prev" EXIT
	fi
	mount -t overlay overlay -o "lowerdir=$lower,upperdir=$ROOTS_TMP/upper,workdir=$ROOTS_TMP/work" "$ROOT" ||
		roots_fail "roots_open: overlay on $lower failed"
	mount -t proc proc "$ROOT/proc"
	local d
	for d in sys dev; do
		mount --rbind "/$d" "$ROOT/$d"
		mount --make-rslave "$ROOT/$d"
	done
	if [ "$run" = host ]; then
		mount --rbind /run "$ROOT/run"
		mount --make-rslave "$ROOT/run"
	else
		mount -t tmpfs -o mode=755 tmpfs "$ROOT/run"
		if [ "$run" = journal ] && [ -d /run/systemd/journal ]; then
			mkdir -p "$ROOT/run/systemd/journal"
			mount --bind /run/systemd/journal "$ROOT/run/systemd/journal"
		fi
	fi
	# the release's download cache (tests/roots/make), and the host's resolver
	[ ! -d "$(dirname "$lower")/archives" ] ||
		mount --bind "$(dirname "$lower")/archives" "$ROOT/var/cache/apt/archives"
	cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
}

# roots_exec CMD...: CMD inside ROOT, in a clean environment
# (roots_exec env NAME=VALUE CMD... adds to it).
roots_exec() {
	[ -n "$ROOT" ] || roots_fail "roots_exec: no root open"
	chroot "$ROOT" /usr/bin/env -i PATH="$ROOTS_ENV_PATH" HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

# roots_spawn CMD...: CMD inside ROOT in the background, as roots_exec;
# ROOTS_PID is its pid (CMD's own: chroot and env exec it).
roots_spawn() {
	[ -n "$ROOT" ] || roots_fail "roots_spawn: no root open"
	chroot "$ROOT" /usr/bin/env -i PATH="$ROOTS_ENV_PATH" HOME=/root LANG=C.UTF-8 "$@" &
	ROOTS_PID=$!
}

# roots_pids: the processes whose root directory is ROOT.
roots_pids() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		[ "$r" = "$ROOT" ] && echo "${p#/proc/}"
	done
	return 0
}

# roots_wait_gone PID... : polls until none of them runs (10 s at most).
roots_wait_gone() {
	local i p alive
	for i in $(seq 100); do
		alive=
		for p in "$@"; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ -n "$alive" ] || return 0
		sleep 0.1
	done
	return 1
}

roots_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# roots_smbd_start [PORT]: the root's smbd on 127.0.0.1 (a free port unless
# given), a guest share [share] at ROOTS_SMBD_SHARE (a host path; inside the
# root ROOTS_SMBD_DIR/share), started without a process group of its own so
# that its children follow its SIGTERM. Waits until the share answers.
# Extra [global] lines: ROOTS_SMBD_GLOBAL.
roots_smbd_start() {
	[ -n "$ROOT" ] || roots_fail "roots_smbd_start: no root open"
	[ -z "$ROOTS_SMBD_PID" ] || roots_fail "roots_smbd_start: smbd $ROOTS_SMBD_PID runs already"
	[ -x "$ROOT/usr/sbin/smbd" ] || roots_fail "roots_smbd_start: no smbd in the root (package samba)"
	ROOTS_SMBD_PORT=${1:-$(roots_free_port)}
	ROOTS_SMBD_DIR=/srv/smblat-smbd
	local S=$ROOT$ROOTS_SMBD_DIR
	ROOTS_SMBD_SHARE=$S/share
	mkdir -p "$S"/{share,run,lock,state,cache,private,log}
	cat >"$S/smb.conf" <<CONF
[global]
server role = standalone server
interfaces = lo
bind interfaces only = yes
smb ports = $ROOTS_SMBD_PORT
pid directory = $ROOTS_SMBD_DIR/run
lock directory = $ROOTS_SMBD_DIR/lock
state directory = $ROOTS_SMBD_DIR/state
cache directory = $ROOTS_SMBD_DIR/cache
private dir = $ROOTS_SMBD_DIR/private
ncalrpc dir = $ROOTS_SMBD_DIR/run/ncalrpc
log file = $ROOTS_SMBD_DIR/log/log.%m
passdb backend = tdbsam:$ROOTS_SMBD_DIR/private/passdb.tdb
map to guest = Bad User
guest account = nobody
load printers = no
disable spoolss = yes
printcap name = /dev/null
${ROOTS_SMBD_GLOBAL:-}
[share]
path = $ROOTS_SMBD_DIR/share
guest ok = yes
read only = no
force user = root
CONF
	# Samba from 4.16 on starts samba-dcerpcd for RPC unless told not to;
	# older ones do not know the option (and would warn about it).
	if roots_exec smbd -b 2>/dev/null | grep -q SAMBA_DCERPCD; then
		sed -i '/^\[share\]/i rpc start on demand helpers = no' "$S/smb.conf"
	fi
	setsid chroot "$ROOT" /usr/bin/env -i PATH="$ROOTS_ENV_PATH" LANG=C.UTF-8 \
		/usr/sbin/smbd -F --no-process-group -s "$ROOTS_SMBD_DIR/smb.conf" \
		</dev/null >"$S/smbd.out" 2>&1 &
	ROOTS_SMBD_PID=$!
	local i
	for i in $(seq 150); do
		roots_smbclient -c ls >/dev/null 2>&1 && break
		kill -0 "$ROOTS_SMBD_PID" 2>/dev/null || {
			cat "$S/smbd.out" "$S"/log/log.* >&2 2>/dev/null
			ROOTS_SMBD_PID=
			roots_fail "the root's smbd exited at start"
		}
		sleep 0.2
	done
	[ "$i" -lt 150 ] || roots_fail "the root's smbd does not answer on port $ROOTS_SMBD_PORT"
	[ "$(readlink "/proc/$ROOTS_SMBD_PID/exe")" = "$ROOT/usr/sbin/smbd" ] ||
		roots_fail "pid $ROOTS_SMBD_PID is not the root's smbd"
}

# roots_smbclient ARGS...: the root's smbclient on the share, as guest.
roots_smbclient() {
	timeout 60 chroot "$ROOT" /usr/bin/env -i PATH="$ROOTS_ENV_PATH" LANG=C.UTF-8 \
		smbclient //127.0.0.1/share -p "$ROOTS_SMBD_PORT" -N "$@"
}

roots_smbd_stop() {
	[ -n "$ROOTS_SMBD_PID" ] || return 0
	local pid=$ROOTS_SMBD_PID
	ROOTS_SMBD_PID=
	kill -TERM "$pid" 2>/dev/null || true
	roots_wait_gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

roots_close() {
	[ -n "$ROOT" ] || return 0
	roots_smbd_stop
	local pids
	pids=$(roots_pids)
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086
		kill -TERM $pids 2>/dev/null || true
		# shellcheck disable=SC2086
		roots_wait_gone $pids || kill -KILL $pids 2>/dev/null || true
		# shellcheck disable=SC2086
		roots_wait_gone $pids || echo "roots: processes still in $ROOT: $pids" >&2
	fi
	umount -R "$ROOT" 2>/dev/null || umount -R -l "$ROOT" 2>/dev/null || true
	# Never remove while anything is mounted below: /dev, /sys and the
	# download cache are bound there.
	if awk -v t="$ROOTS_TMP" '$5 == t || index($5, t "/") == 1 { found = 1 } END { exit !found }' \
		/proc/self/mountinfo; then
		echo "roots: $ROOT stays mounted; not removed" >&2
	else
		rm -rf --one-file-system "$ROOTS_TMP"
	fi
	[ -z "$ROOTS_LOCK_FD" ] || exec {ROOTS_LOCK_FD}>&-
	ROOT='' ROOTS_TMP='' ROOTS_LOCK_FD=''
}
