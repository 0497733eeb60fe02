#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The tree is formatted with its .clang-format: every tracked C file, as is.
set -eu

fail() { echo "FAIL: $*" >&2; exit 1; }

command -v clang-format >/dev/null 2>&1 ||
	fail "clang-format is not installed (Debian: clang-format, see tests/packages.txt)"
cd "$SOURCE_ROOT"
[ -f .clang-format ] || fail "no .clang-format in $SOURCE_ROOT"
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v 'vmlinux\.h$') ||
	files=$(find agent bpf tests bench -name '*.[ch]' ! -name vmlinux.h)
# a file deleted in the work tree but not yet in the index is no file to check
files=$(for f in $files; do [ -f "$f" ] && echo "$f"; done)
[ -n "$files" ] || fail "no C files found under $SOURCE_ROOT"
# shellcheck disable=SC2086
if ! clang-format --dry-run --Werror $files 2>"${TMPDIR:-/tmp}/format.$$"; then
	grep -E '^[^ ].*: (error|warning):' "${TMPDIR:-/tmp}/format.$$" | cut -d: -f1 | sort -u |
		sed 's/^/not formatted: /' >&2
	rm -f "${TMPDIR:-/tmp}/format.$$"
	fail "run clang-format -i on the files above"
fi
rm -f "${TMPDIR:-/tmp}/format.$$"
echo "PASS: $(echo "$files" | wc -l) files formatted"
