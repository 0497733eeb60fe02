#!/bin/bash
# shell-completion/smblat: its option tables are the options "smblat --help"
# lists (so a CLI change that forgets the completion fails here), the
# values it offers are accepted by smblat, it completes in a real bash with
# bash-completion, and meson installs it where bash-completion looks.
. "${SOURCE_ROOT:?}/tests/lib-host.sh"

comp="$SOURCE_ROOT/shell-completion/smblat"
bc=/usr/share/bash-completion/bash_completion
[ -r "$bc" ] || fail "bash-completion not installed (tests/packages.txt)"

# 1. the tables against --help
"$SMBLAT" --help >"$TMP/help"
help_opts=$(grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' "$TMP/help" | tr -d ' ,' | sort -u)
"$SMBLAT" --version | grep -q '^smblat ' || fail "smblat --version"
comp_opts=$(bash -c '. "$1"; . "$2"; printf "%s\n" $_smblat_flags "${!_smblat_values[@]}"' _ "$bc" "$comp" | sort -u)
diff <(echo "$help_opts") <(echo "$comp_opts") >"$TMP/diff" ||
	{ cat "$TMP/diff"; fail "completion options differ from smblat --help (<: only in --help, >: only in the completion)"; }
# options with a value are those --help shows with one: "-c, --config FILE"
optline() { grep -E -- "^ +(-[a-zA-Z], )?(--[a-z-]+ )*$1([ ,=[]|$)" "$TMP/help" | head -1; }
for o in $(bash -c '. "$1"; . "$2"; printf "%s\n" "${!_smblat_values[@]}"' _ "$bc" "$comp"); do
	optline "$o" | grep -qE -- '^ +(-[a-zA-Z], )?--[a-z-]+ [A-Z]+ ' ||
		fail "$o takes a value in the completion, not in --help: $(optline "$o")"
done
for o in $(bash -c '. "$1"; . "$2"; printf "%s\n" $_smblat_flags' _ "$bc" "$comp"); do
	! optline "$o" | grep -qE -- '^ +(-[a-zA-Z], )?--[a-z-]+ [A-Z]+ ' ||
		fail "$o takes a value in --help, not in the completion"
done

# 2. the values it offers are taken
for l in $(bash -c '. "$1"; . "$2"; echo $_smblat_layers' _ "$bc" "$comp"); do
	"$SMBLAT" --check-config -c /dev/null --layers "$l" >/dev/null 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "completion offers layer $l, smblat refuses it"; }
done
for b in $(bash -c '. "$1"; . "$2"; echo $_smblat_backends' _ "$bc" "$comp"); do
	"$SMBLAT" --check-config -c /dev/null --backend "$b" >/dev/null 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "completion offers backend $b, smblat refuses it"; }
done
! "$SMBLAT" --check-config -c /dev/null --layers nosuch >/dev/null 2>&1 || fail "smblat takes any layer: step 2 proves nothing"

# 3. in bash: complete LINE prints the candidates for the last word of LINE
complete_line() {
	bash -c '. "$1"; . "$2"; read -ra COMP_WORDS <<<"$3"; [[ $3 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$3; COMP_POINT=${#3}
		_smblat smblat "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$bc" "$comp" "$1" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() {   # expect LINE CANDIDATES
	local got
	got=$(complete_line "$1")
	[ "$got" = "$2" ] || fail "completing '$1': '$got', want '$2'"
}
expect "smblat --lay" "--layers"
expect "smblat --layers smb,bl" "smb,block"
expect "smblat --backend k" "kprobe kprobe-multi"
expect "smblat --list-" "--list-probes"
expect "smblat -f sysc" "syscall:"
expect "smblat -c $SOURCE_ROOT/units/smblat.sys" "$SOURCE_ROOT/units/smblat.sysusers"
expect "smblat --config=$SOURCE_ROOT/units/smblat.cat" "$SOURCE_ROOT/units/smblat.catalog"
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	if [ -d "$d/events/syscalls/sys_enter_nanosleep" ]; then
		expect "smblat -f syscall:nanosl" "syscall:nanosleep"
		break
	fi
done

# 4. installed where bash-completion looks (its completionsdir under the prefix)
meson introspect "$BUILD_ROOT" --installed | grep -q '"[^"]*/share/bash-completion/completions/smblat"' ||
	fail "meson does not install the completion into .../share/bash-completion/completions"
echo ok
