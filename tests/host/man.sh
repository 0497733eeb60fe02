#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every man page renders without a single groff or man warning, and has no placeholder left.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }

command -v man >/dev/null 2>&1 ||
	fail "man is not installed (Debian: man-db and groff, see tests/packages.txt)"

pages=$(ls "$SOURCE_ROOT"/man/*.[1-8] 2>/dev/null) || fail "no man pages under $SOURCE_ROOT/man"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bad=0
for page in $pages; do
	LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$page" >/dev/null 2>"$tmp/err" || {
		echo "FAIL: man exited with $? on $page" >&2
		bad=1
	}
	if [ -s "$tmp/err" ]; then
		echo "FAIL: warnings in $page:" >&2
		cat "$tmp/err" >&2
		bad=1
	fi
done
# text left for a generator that never ran (smblat(8)'s COST once showed one)
if grep -n 'PLACEHOLDER' $pages >&2; then
	echo "FAIL: a placeholder in a man page" >&2
	bad=1
fi
[ "$bad" -eq 0 ] || exit 1
echo "ok: $(echo "$pages" | wc -w) pages without warnings"

# The pages this build installs name the configuration its binary reads
# (meson's sysconfdir; the package's /etc, a plain build's /usr/local/etc).
config=$("$SMBLAT" --help 2>&1 | sed -n 's/.*configuration (default \(.*\))$/\1/p')
[ -n "$config" ] || fail "smblat --help names no default configuration"
for page in smblat.8 smblat.conf.5; do
	built=$BUILD_ROOT/man/$page
	[ -f "$built" ] || fail "$built not built"
	grep -qF "$config" "$built" || fail "$built does not name $config, which the binary reads"
	other=$(grep -oE '(/[[:alnum:]_.-]+)+/smblat/smblat\.conf' "$built" | sort -u | grep -vxF "$config" || true)
	[ -z "$other" ] || fail "$built names $other; the binary reads $config"
done
echo "ok: the built pages name $config, as smblat --help does"
