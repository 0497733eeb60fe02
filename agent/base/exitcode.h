/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process exit statuses, smblat(8) EXIT STATUS. Their own numbers, never
 * an errno: functions return -errno and the caller that knows the phase
 * (command line, configuration, run) picks the status.
 */
#pragma once

enum exit_status {
	EXIT_STATUS_OK = 0,
	EXIT_STATUS_FAILURE = 1, /* the run: BPF, journal, privileges, output files */
	EXIT_STATUS_USAGE = 2,   /* the command line, as getopt tools and LSB say */
	EXIT_STATUS_CONFIG = 78, /* sysexits' EX_CONFIG: the unit's RestartPreventExitStatus= */
};
