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
for w in $(bash -c '. "$1"; echo $_smblat_weights' _ "$comp"); do
	"$SMBLAT" --check-config -c /dev/null --stacks="$w" >/dev/null 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "completion offers --stacks=$w, smblat refuses it"; }
done
for who in $(bash -c '. "$1"; echo $_smblat_whos' _ "$comp"); do
	case $who in pid:) who=pid:1 ;; comm:) who=comm:smbd ;; cgroup:) who=cgroup:/ ;; esac
	"$SMBLAT" --check-config -c /dev/null --syscalls="$who" >/dev/null 2>"$TMP/err" ||
		{ cat "$TMP/err"; fail "completion offers --syscalls=$who, smblat refuses it"; }
done
# every syscall it offers is one smblat knows (they come from another list than smblat's)
syscalls=$(bash -c '. "$1"; _smblat_syscalls' _ "$comp" || true)
[ "$(echo "$syscalls" | grep -c .)" -ge 100 ] || fail "the completion knows $(echo "$syscalls" | grep -c .) syscalls"
args=()
for n in $syscalls; do args+=(-f "syscall:$n"); done
"$SMBLAT" --check-config -c /dev/null "${args[@]}" >/dev/null 2>"$TMP/err" ||
	{ cat "$TMP/err"; fail "the completion offers a syscall smblat does not know"; }

# 3. the candidates for the last word of a line, with bash-completion (bc)
#    and without it (plain: the completion sourced alone). COMP_WORDS is
#    split as bash splits it (at blanks, and around each run of the
#    COMP_WORDBREAKS characters, ':' and '=' among them); the candidates are
#    what bash puts in place of the text after the line's last break.
complete_line() {   # complete_line bc|plain LINE
	bash -c 'if [ "$1" = bc ]; then . "$2"; fi; . "$3"
		line=$4 words=() w=
		for ((i = 0; i < ${#line}; i++)); do
			c=${line:i:1}
			if [[ $c == [[:space:]] ]]; then
				[ -z "$w" ] || words+=("$w"); w=
			elif [[ $COMP_WORDBREAKS == *"$c"* ]]; then
				[ -z "$w" ] || [[ $COMP_WORDBREAKS == *"${w: -1}"* ]] || { words+=("$w"); w=; }
				w+=$c
			else
				[ -z "$w" ] || [[ $COMP_WORDBREAKS != *"${w: -1}"* ]] || { words+=("$w"); w=; }
				w+=$c
			fi
		done
		words+=("$w")
		COMP_WORDS=("${words[@]}")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$line; COMP_POINT=${#line}
		_smblat smblat "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$1" "$bc" "$comp" "$2" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() {   # expect LINE CANDIDATES
	local got how
	for how in bc plain; do
		got=$(complete_line $how "$1")
		[ "$got" = "$2" ] || fail "completing '$1' ($how): '$got', want '$2'"
	done
}
expect "smblat --lay" "--layers"
expect "smblat --layers smb,bl" "smb,block"
expect "smblat --backend k" "kprobe kprobe-multi"
expect "smblat --list-" "--list-probes"
expect "smblat -f sysc" "syscall:"
expect "smblat -c $SOURCE_ROOT/units/smblat.sys" "$SOURCE_ROOT/units/smblat.sysusers"
expect "smblat --config=$SOURCE_ROOT/units/smblat.cat" "$SOURCE_ROOT/units/smblat.catalog"
expect "smblat --stacks=" "calls time"
expect "smblat --stacks=t" "time"
expect "smblat --syscalls=p" "pid:"
expect "smblat --syscalls=smbd,c" "smbd,cgroup: smbd,comm:"
expect "smblat -f usdt:$SOURCE_ROOT/units/smblat.sys" "$SOURCE_ROOT/units/smblat.sysusers"
expect "smblat -f syscall:nanosl" "nanosleep"
expect "smblat --function=syscall:nanosl" "nanosleep"

# 4. in a real bash on a terminal (readline does the splitting and the
#    insertion): the line after one TAB, with bash-completion and without
cat >"$TMP/tty-complete.py" <<'PY'
import os, pty, re, select, sys, time

def complete(line, setup):
    pid, fd = pty.fork()
    if pid == 0:
        env = {"PATH": os.environ["PATH"], "TERM": "dumb", "INPUTRC": "/dev/null", "PS1": "$ ", "HOME": "/"}
        os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)
    out = b""

    def until(pattern):
        nonlocal out
        end = time.time() + 20
        while time.time() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    break
            m = re.search(pattern, out)
            if m:
                return m
        sys.exit("no %r in %r" % (pattern, out))

    os.write(fd, b"bind 'set enable-bracketed-paste off'; bind 'set bell-style none'\n")
    # C-x p prints the line being edited
    os.write(fd, b"bind -x '\"\\C-xp\": printf \"\\nLINE<%s>\\n\" \"$READLINE_LINE\"'\n")
    for s in setup:
        os.write(fd, b". " + s.encode() + b"\n")
    os.write(fd, b"echo READY\n")
    until(rb"\nREADY")
    out = b""
    os.write(fd, line.encode() + b"\t")
    # the completion is done when readline echoes what it inserted; then ask for the line
    until(re.escape(line.encode()))
    os.write(fd, b"\x18p")
    m = until(rb"LINE<([^>]*)>")
    os.kill(pid, 9)
    return m.group(1).decode()

print(complete(sys.argv[1], sys.argv[2:]))
PY
tty_expect() {   # tty_expect LINE RESULT
	local got
	got=$(python3 "$TMP/tty-complete.py" "$1" "$bc" "$comp") || fail "pty: $got"
	[ "$got" = "$2" ] || fail "TAB after '$1' with bash-completion: '$got', want '$2'"
	got=$(python3 "$TMP/tty-complete.py" "$1" "$comp") || fail "pty: $got"
	[ "$got" = "$2" ] || fail "TAB after '$1' without bash-completion: '$got', want '$2'"
}
tty_expect "smblat --lay" "smblat --layers "
tty_expect "smblat --stacks=ti" "smblat --stacks=time "
tty_expect "smblat -f usdt:$SOURCE_ROOT/units/smblat.sys" "smblat -f usdt:$SOURCE_ROOT/units/smblat.sysusers "
tty_expect "smblat -f syscall:nanosl" "smblat -f syscall:nanosleep "
tty_expect "smblat --syscalls=smbd,co" "smblat --syscalls=smbd,comm:"

# 5. installed where bash-completion looks (its completionsdir under the prefix)
meson introspect "$BUILD_ROOT" --installed | grep -q '"[^"]*/share/bash-completion/completions/smblat"' ||
	fail "meson does not install the completion into .../share/bash-completion/completions"
echo ok
