# Loop devices for the block layer's host tests, after lib-host.sh:
#
#   . "$SOURCE_ROOT/tests/lib-host.sh"
#   . "$SOURCE_ROOT/tests/lib-loop.sh"
#   loop_new a 16M; dev=$LOOP
#
# They are detached at exit, with lib-host.sh's cleanup.

LOOPS=()
loop_cleanup() {
	for l in "${LOOPS[@]}"; do losetup -d "$l" 2>/dev/null || true; done
	cleanup
}
trap loop_cleanup EXIT

# loop_new NAME SIZE: a loop device over a sparse file of SIZE in $LOOP; not
# in $(...), whose subshell would keep LOOPS from the cleanup.
loop_new() {
	truncate -s "$2" "$TMP/$1.img"
	LOOP=$(losetup -f --show "$TMP/$1.img") || fail "losetup: cannot create a loop device"
	LOOPS+=("$LOOP")
}
