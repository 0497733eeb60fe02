#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# build-pp.sh SRCDIR [OUTDIR]
# Builds smblat.pp from SRCDIR/smblat.{te,fc,if} with the SELinux reference
# policy's development Makefile, in a scratch copy since that Makefile
# writes next to its sources. Without OUTDIR the package is built and
# thrown away: the meson test that keeps the policy compiling. Exits 77
# (skip) when the development Makefile is not installed.
set -eu

makefile=${SELINUX_DEVEL_MAKEFILE:-/usr/share/selinux/devel/Makefile}
src=$1
out=${2:-}

if [ ! -f "$makefile" ]; then
	echo "skip: $makefile not found (Debian: selinux-policy-dev)"
	exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src/smblat.te" "$src/smblat.fc" "$src/smblat.if" "$work/"
if ! make -s -C "$work" -f "$makefile" smblat.pp >"$work/make.log" 2>&1; then
	cat "$work/make.log" >&2
	echo "smblat.pp: policy build failed" >&2
	exit 1
fi
if [ -n "$out" ]; then
	cp "$work/smblat.pp" "$out"
else
	echo "smblat.pp builds ($(wc -c <"$work/smblat.pp") bytes)"
fi
