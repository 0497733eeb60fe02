/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SMB share names of mounted file systems, by device number. */
#pragma once

#include <stdint.h>

struct mounts;

int mounts_new(const char *mountinfo, struct mounts **ret); /* NULL: /proc/self/mountinfo */
void mounts_free(struct mounts *m);
/*
 * "\\server\share" of the cifs/smb3 mount with kernel device number kdev
 * (MAJOR << 20 | MINOR, as in super_block.s_dev), or NULL. Re-reads the
 * mount table on a miss, at most once a second.
 */
const char *mounts_share(struct mounts *m, uint32_t kdev);
/*
 * The shares mounted from server (as mounted: name or address), each once,
 * at most max of them into out; their count. The table as last read: the
 * pointers stay valid until the next mounts_share() that re-reads it.
 */
size_t mounts_server_shares(const struct mounts *m, const char *server, const char **out, size_t max);
