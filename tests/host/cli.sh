#!/bin/bash
# Bad command lines and configurations: one clear line, the documented exit code.
. "$SOURCE_ROOT/tests/lib-host.sh"

expect() {   # expect CODE REGEX ARGS...
	local code=$1 re=$2 rc=0
	shift 2
	"$SMBLAT" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	[ "$rc" -eq "$code" ] || { cat "$TMP/err"; fail "smblat $*: exit $rc, expected $code"; }
	grep -qE -e "$re" "$TMP/err" || { cat "$TMP/err"; fail "smblat $*: no message matching /$re/"; }
	[ "$(wc -l <"$TMP/err")" -le 2 ] || { cat "$TMP/err"; fail "smblat $*: more than one error line"; }
}

expect 2 "unrecognized option" --bogus
expect 2 "invalid pid \"abc\"" -p abc
expect 2 "invalid threshold \"ten\"" ten
expect 2 "unknown layer \"nfs\"" --layers nfs
expect 2 "unknown backend \"ebpf\"" --backend ebpf
expect 2 "--hist needs --stdout" --hist
expect 78 "No such file or directory" -c "$TMP/missing.conf"
printf '[agent]\ntreshold = 5ms\n' >"$TMP/bad.conf"
expect 78 "^$TMP/bad.conf:2: .*treshold.*threshold" -c "$TMP/bad.conf"
printf '[agent]\nthreshold = 5 parsecs\n' >"$TMP/bad2.conf"
expect 78 "^$TMP/bad2.conf:2: " -c "$TMP/bad2.conf"
"$SMBLAT" --check-config -c /dev/null 5 | grep -q "^threshold = 5ms" || fail "--check-config does not show the CLI threshold"
echo ok
