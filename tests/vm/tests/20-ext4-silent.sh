#!/bin/bash
# Generic helpers shared with other file systems count only SMB superblocks:
# heavy ext4 work at threshold 0 yields no smb entry, while SMB work does.
. "$VM_DIR/lib.sh"

printf '[agent]\nthreshold = 0\nuser =\n[histogram]\ninterval = 0\n' >conf
cp /bin/cp ./ext4work
cp /bin/cp ./smbwork
head -c 4M /dev/urandom >blob
agent_start -c conf
journal_mark
for i in $(seq 20); do ./ext4work blob "$EXT4_MNT/blob.$i"; done
sync
./smbwork blob "$SMB_MNT/blob.$$"
rm -f "$EXT4_MNT"/blob.*
journal_wait COMM=smbwork LAYER=smb >/dev/null
agent_stop
assert_eq "$(journal_count COMM=ext4work LAYER=smb)" 0 "smb entries from ext4 work"
assert_ge "$(journal_count COMM=smbwork LAYER=smb)" 3 "smb entries from SMB work"
rm -f "$SMB_MNT/blob.$$"
