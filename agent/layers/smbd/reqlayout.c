// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "layers/smbd/reqlayout.h"
#include "symbols/usyms.h"

#define CODE_MAX 32

/*
 * "mov disp(%rdi),%eax" and "cmp disp(%rdi),%eax": opcode, ModRM with
 * rm = %rdi and reg = %eax, an 8- or 32-bit displacement. Returns the
 * instruction's length, 0 when it is not one.
 */
static size_t rdi_disp(const uint8_t *c, size_t n, uint8_t opcode, uint32_t *disp)
{
	if (n < 3 || c[0] != opcode)
		return 0;
	if (c[1] == 0x47) { /* mod 01: disp8 */
		*disp = c[2];
		return 3;
	}
	if (c[1] == 0x87 && n >= 6) { /* mod 10: disp32 */
		*disp = (uint32_t)c[2] | (uint32_t)c[3] << 8 | (uint32_t)c[4] << 16 | (uint32_t)c[5] << 24;
		return 6;
	}
	return 0;
}

int reqlayout_decode(const uint8_t *c, size_t n, struct smbd_hdr_layout *ret)
{
	uint32_t idx, count;
	size_t k, at = 0;

	/* endbr64 under CET */
	if (n >= 4 && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
		at = 4;
	k = rdi_disp(c + at, n - at, 0x8b, &idx);
	if (!k)
		return -EPROTO;
	at += k;
	if (n - at < 3 || c[at] != 0x83 || c[at + 1] != 0xc0 || c[at + 2] != 0x04)
		return -EPROTO;
	at += 3;
	k = rdi_disp(c + at, n - at, 0x3b, &count);
	if (!k || count < 8 || idx == count)
		return -EPROTO;
	*ret = (struct smbd_hdr_layout) {
		.on = 1,
		.current_idx = idx,
		.in_vector = count - 8, /* struct { struct iovec *vector; int vector_count; } in */
	};
	return 0;
}

int reqlayout_read(struct usyms *us, const char *lib, struct smbd_hdr_layout *ret)
{
	uint8_t code[CODE_MAX];
	uint64_t off;
	ssize_t n;
	int fd, r;

#ifndef __x86_64__
	return -EPROTO;
#endif
	r = usyms_resolve(us, lib, SMBDREQ_FUNCTION, &off);
	if (r < 0)
		return r;
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, code, sizeof(code), (off_t)off);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	return reqlayout_decode(code, (size_t)n, ret);
}
