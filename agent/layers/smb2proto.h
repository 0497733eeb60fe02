/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SMB2 protocol names: commands (MS-SMB2 2.2.1) and common NT status codes (MS-ERREF 2.3). */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* "SMB2_CREATE" for 0x05; NULL for codes SMB2 does not define. */
const char *smb2_command_name(unsigned int cmd);

/* "STATUS_OBJECT_NAME_NOT_FOUND", else "0xC0000034"-style hex in buf. */
const char *smb2_status_name(uint32_t status, char *buf, size_t len);
