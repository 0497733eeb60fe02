// SPDX-License-Identifier: LGPL-2.1-or-later
/* [block], the section of the block layer: disks= and queue_time=, both read once at start. */
#include <string.h>

#include "config/section.h"
#include "config/values.h"
#include "layers/block/settings.h"
#include "base/macro.h"
#include "bpf/block.h"

/* Kernel disk names: sda, nvme0n1, dm-0, cciss!c0d0 (sysfs spells '/' as '!'). */
static int disk_check(struct config_parser *p, const char *v, size_t n)
{
	size_t len = strlen(v);

	if (len == 0 || len >= BLOCK_DISK_LEN || strchr(v, '/') || v[0] == '.' || values_has_control(v))
		return config_fail(p,
				   "invalid disk name \"%s\" in disks, expected a name of /sys/class/block "
				   "such as sda or nvme0n1",
				   v);
	/* BPF compares against a fixed array of dev_t */
	if (n == BLOCK_MAX_DISKS)
		return config_fail(p, "disks lists more than %d disks", BLOCK_MAX_DISKS);
	return 0;
}

/* The filter and the tracepoints are read-only data of the BPF object. */
static const struct config_key keys[] = {
	CONFIG_KEY("disks", struct block_settings, disks, config_list, .check = disk_check,
		   .item_len = BLOCK_DISK_LEN + 1, .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("queue_time", struct block_settings, queue_time, config_bool, .flags = CONFIG_KEY_RESTART),
};

const struct config_section block_settings_section = CONFIG_SETTINGS("block", struct block_settings, keys);
