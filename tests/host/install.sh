#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# "meson install" into a scratch DESTDIR puts every file where the system
# looks for it, and what it installs is usable there: the unit points at
# the installed binary and stays hardened, the sysusers entry creates the
# user, the catalog compiles, the SELinux module is there when it can be
# built. Files owned by parts not written yet (conf/) are only checked
# when their sources exist.
set -eu

fail() { echo "FAIL: $*" >&2; FAILED=1; }
FAILED=0

tmp=$(mktemp -d /tmp/smblat-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

meson install -C "$BUILD_ROOT" --destdir "$dest" --no-rebuild >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log" >&2
	echo "FAIL: meson install failed" >&2
	exit 1
}

# The directories this build was configured with, as absolute paths.
eval "$(meson introspect "$BUILD_ROOT" --buildoptions | python3 -c '
import json, os, sys
opts = {o["name"]: o["value"] for o in json.load(sys.stdin)}
prefix = opts["prefix"]
for name in ("sbindir", "sysconfdir", "mandir", "datadir"):
    print("%s=%s" % (name, os.path.join(prefix, opts[name])))
print("prefix=%s" % prefix)
')"

pcvar() { pkg-config --variable="$1" systemd 2>/dev/null || true; }
unitdir=$(pcvar systemdsystemunitdir)
unitdir=${unitdir:-$prefix/lib/systemd/system}
sysusersdir=$(pcvar sysusersdir)
sysusersdir=${sysusersdir:-$prefix/lib/sysusers.d}
catalogdir=/usr/lib/systemd/catalog

expect_file() {   # expect_file PATH [MODE-TEST]
	if [ ! -f "$dest$1" ]; then
		fail "not installed: $1"
		return 1
	fi
	case "${2:-}" in
	exec) [ -x "$dest$1" ] || fail "not executable: $1" ;;
	esac
	echo "ok: $1"
}

# The binary: only once agent/main.c exists, as in the top meson.build.
binary=$sbindir/smblat
if [ -f "$SOURCE_ROOT/agent/main.c" ]; then
	expect_file "$binary" exec || true
fi

# The configuration belongs to conf/; check it when its source is there.
if [ -f "$SOURCE_ROOT/conf/smblat.conf" ]; then
	config=$(sed -n 's/^#define SMBLAT_CONFIG_PATH "\(.*\)"$/\1/p' "$BUILD_ROOT/smblat-config.h")
	[ -n "$config" ] || config=$sysconfdir/smblat/smblat.conf
	if expect_file "$config"; then
		cmp -s "$SOURCE_ROOT/conf/smblat.conf" "$dest$config" ||
			fail "$config differs from conf/smblat.conf"
	fi
fi

# The unit, and what it says once installed.
unit=$unitdir/smblat.service
if expect_file "$unit"; then
	execstart=$(sed -n 's/^ExecStart=//p' "$dest$unit")
	[ "$execstart" = "$binary" ] || fail "$unit: ExecStart=$execstart, but the binary goes to $binary"
	if command -v systemd-analyze >/dev/null 2>&1; then
		# A copy that names a binary that exists here, so that verify
		# judges the unit and not this machine's /usr/sbin.
		sed "s|^ExecStart=.*|ExecStart=/bin/true|" "$dest$unit" >"$tmp/smblat.service"
		if ! systemd-analyze verify --man=no "$tmp/smblat.service" >"$tmp/verify.log" 2>&1; then
			cat "$tmp/verify.log" >&2
			fail "$unit: systemd-analyze verify failed"
		fi
		# The hardening budget: exposure 3.0 at most.
		if ! systemd-analyze security --offline=true --threshold=30 "$tmp/smblat.service" \
			>"$tmp/security.log" 2>&1; then
			grep -E '✗|→' "$tmp/security.log" >&2 || cat "$tmp/security.log" >&2
			fail "$unit: exposure above 3.0"
		else
			echo "ok: $(grep '→' "$tmp/security.log" | sed 's/^→ //')"
		fi
	else
		echo "skip: systemd-analyze not installed, unit not verified"
	fi
fi

# sysusers.d entry: creates the user the agent drops to.
sysusers=$sysusersdir/smblat.conf
if expect_file "$sysusers"; then
	if command -v systemd-sysusers >/dev/null 2>&1; then
		mkdir -p "$tmp/root/etc"
		systemd-sysusers --root="$tmp/root" "$dest$sysusers" >"$tmp/sysusers.log" 2>&1 ||
			{ cat "$tmp/sysusers.log" >&2; fail "$sysusers: systemd-sysusers failed"; }
		grep -q '^smblat:x:[0-9]*:[0-9]*:.*:/usr/sbin/nologin$' "$tmp/root/etc/passwd" ||
			fail "$sysusers: no smblat user with nologin created"
	fi
fi

# The catalog: compiles, and has an entry for each MESSAGE_ID in base/messages.h.
catalog=$catalogdir/smblat.catalog
if expect_file "$catalog"; then
	mkdir -p "$tmp/croot/usr/lib/systemd/catalog" "$tmp/croot/var/lib/systemd/catalog"
	cp "$dest$catalog" "$tmp/croot/usr/lib/systemd/catalog/"
	if journalctl --root="$tmp/croot" --update-catalog >"$tmp/catalog.log" 2>&1; then
		for id in $(sed -n 's/^#define SMBLAT_MID_[A-Z_]* *"\([0-9a-f]\{32\}\)".*/\1/p' \
				"$SOURCE_ROOT/agent/base/messages.h"); do
			journalctl --root="$tmp/croot" --list-catalog 2>/dev/null | grep -q "^$id smblat: " ||
				fail "$catalog: no entry for MESSAGE_ID $id"
		done
	else
		cat "$tmp/catalog.log" >&2
		fail "$catalog: journalctl --update-catalog failed"
	fi
fi

# Man pages.
for page in man8/smblat.8 man5/smblat.conf.5 man7/smblat-fields.7; do
	expect_file "$mandir/$page" || true
done

# The SELinux module, whenever it can be built here.
if [ -f /usr/share/selinux/devel/Makefile ]; then
	pp=$datadir/selinux/packages/smblat.pp
	if expect_file "$pp"; then
		[ -s "$dest$pp" ] || fail "$pp is empty"
	fi
else
	echo "skip: no /usr/share/selinux/devel/Makefile, no SELinux module"
fi

# For the record: everything that was installed.
(cd "$dest" && find . -type f -o -type d -empty | sed 's|^\.||' | sort) >"$tmp/all"
echo "installed:"
sed 's/^/  /' "$tmp/all"

[ "$FAILED" -eq 0 ] || exit 1
