-- SPDX-License-Identifier: LGPL-2.1-or-later
-- Written by deploy/generate from its field table; edit that, not this file.
--
-- smblat's journal entries in PostgreSQL (12 or later), one row an entry, as
-- rsyslog writes them with smblat-pgsql.conf: the entry's journal time and
-- all its fields (jsonb, every value text, as the journal has it) are
-- inserted; PostgreSQL types every field of smblat-fields(7) into a column
-- of its own (generated columns). A value that is not a number where one
-- is due leaves its column NULL and stays in `fields`: an insert never
-- fails on content, which would cost rsyslog the whole batch.
--
-- Load it as the database's owner (again after an upgrade of smblat: it
-- adds the columns of new fields and keeps the rows), then let rsyslog's
-- role insert and nothing else:
--   psql -d smblat -f smblat-pgsql.sql
--   GRANT INSERT ON smblat_entry TO rsyslog;
-- deploy/README.md has the whole setup.

CREATE OR REPLACE FUNCTION smblat_bigint(v text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT AS $$
	SELECT CASE WHEN v ~ '^-?[0-9]{1,19}$'
	             AND v::numeric BETWEEN -9223372036854775808 AND 9223372036854775807
	       THEN v::bigint END
$$;

CREATE OR REPLACE FUNCTION smblat_integer(v text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT AS $$
	SELECT CASE WHEN v ~ '^-?[0-9]{1,10}$' AND v::bigint BETWEEN -2147483648 AND 2147483647
	       THEN v::integer END
$$;

CREATE OR REPLACE FUNCTION smblat_double(v text) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT AS $$
	SELECT CASE WHEN length(v) <= 300 AND v ~ '^-?[0-9]+(\.[0-9]+)?$'
	       THEN v::double precision END
$$;

-- Microseconds since the epoch (END_REALTIME_USEC), exactly: an interval of
-- microseconds does not depend on the time zone, so the sum is immutable
-- although timestamptz + interval in general is not.
CREATE OR REPLACE FUNCTION smblat_usec_time(v text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT AS $$
	SELECT timestamptz '1970-01-01 00:00:00+00' + smblat_bigint(v) * interval '1 microsecond'
$$;

-- The kind of entry by its MESSAGE_ID (agent/base/messages.h)
CREATE OR REPLACE FUNCTION smblat_kind(message_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT AS $$
	SELECT CASE message_id
		WHEN 'a48f35af155e4887a8d221f2a9c1c250' THEN 'slow'
		WHEN 'ab8331e2b4474579a55840c9d3a77bac' THEN 'summary'
		WHEN '007f72e0507d4b96b52049ce539ad083' THEN 'loss'
		WHEN '34875d28e8d74ae0835d1a43ea797a29' THEN 'status'
		WHEN '6d4a741edd5141d1b887a019dbc27c13' THEN 'status'
		WHEN '000a570d70c34918a2d2b92626a85235' THEN 'status'
		WHEN 'd9f0e7479be54e2a93402d20c058f2d9' THEN 'status'
		WHEN '4114fad0ff2740eca80cf1ac940e44d6' THEN 'status'
		WHEN '70f3a1c5e2d349b5852ba8ebaca7f03f' THEN 'status'
		WHEN '7106711428c445b698f0b7f8871465e2' THEN 'status'
		WHEN '4785c1bdd50f433086649b46c3453a80' THEN 'status'
		WHEN 'fb55e150488c49ce9e5fc54896673a65' THEN 'status'
		WHEN 'd64263b995be464ea9494a9f48ca0fde' THEN 'status'
		WHEN '4111a39f587b4b4386b8024ac5b749ee' THEN 'status'
		WHEN '54f66d96cd1445c1a2a205ae99a3daaa' THEN 'status'
		WHEN '14507de9f48d4e27ad9cec800b9e680e' THEN 'status'
		WHEN '41cf10865b7c4f0b81d93775fba5fb15' THEN 'status'
		WHEN '38cbbbc494e840b499b4ed7043bb2219' THEN 'status'
		WHEN 'dfa753592cc54982a469608e72db4a98' THEN 'status'
		WHEN '37696141c77044bb90174634b6002f95' THEN 'syscalls'
		WHEN '29fff22de3004d9c8fdf70318b61193f' THEN 'stacks'
		WHEN '11b150a9ad4f43938f3c7ca311c0eec3' THEN 'offcpu'
		WHEN '2610ed9fe5674be1b0126b87a071d042' THEN 'smbd_split'
		WHEN '3aefbceff9ca401c9d1fb860c0bd08d8' THEN 'smbd_exit'
		WHEN '06e3d38cf4f04c3c8e16f9276e76cd63' THEN 'smbd_break'
		WHEN 'a936ebed06754f1283b3c504570f470f' THEN 'smb_reconnect'
		WHEN 'f95b658a9a114ac2b5a319ebdff7e4e1' THEN 'smb_session_setup'
		WHEN '6ac0619b14644612bd95457ad7005318' THEN 'smb_logoff'
		WHEN '895ca5666f9041d3bee0c9778ef5d300' THEN 'smb_session_expired'
		WHEN '2e39dd28181a468bbe618a3a021c98ed' THEN 'smb_tree_connect'
		WHEN '28dcdd6eb1ea44efbc89c1b9de94d738' THEN 'smb_credit_stall'
		WHEN 'aa3cc49f94e7446e82bc583a55646de4' THEN 'smb_slow_response'
		WHEN '3fc21a16f1424ec8a54fe2f452147959' THEN 'share_summary'
		WHEN 'e78ca87a34de4a1da3e39d418e9302a2' THEN 'server_summary'
		WHEN '951a530d517b48cca8e44bac27398543' THEN 'breakdown'
	END
$$;

CREATE TABLE IF NOT EXISTS smblat_entry (
	id                       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	-- when journald received the entry (its __REALTIME_TIMESTAMP)
	journal_time             timestamptz NOT NULL,
	fields                   jsonb NOT NULL
);

-- event_time: when the call returned (END_REALTIME_USEC), else the journal time
ALTER TABLE smblat_entry
	ADD COLUMN IF NOT EXISTS event_time               timestamptz GENERATED ALWAYS AS (coalesce(smblat_usec_time(fields->>'END_REALTIME_USEC'), journal_time)) STORED,
	ADD COLUMN IF NOT EXISTS host                     text GENERATED ALWAYS AS (fields->>'_HOSTNAME') STORED,
	ADD COLUMN IF NOT EXISTS message_id               text GENERATED ALWAYS AS (fields->>'MESSAGE_ID') STORED,
	ADD COLUMN IF NOT EXISTS kind                     text GENERATED ALWAYS AS (smblat_kind(fields->>'MESSAGE_ID')) STORED,
	ADD COLUMN IF NOT EXISTS priority                 smallint GENERATED ALWAYS AS (smblat_integer(fields->>'PRIORITY')::smallint) STORED,
	ADD COLUMN IF NOT EXISTS message                  text GENERATED ALWAYS AS (fields->>'MESSAGE') STORED,
	ADD COLUMN IF NOT EXISTS agent_pid                integer GENERATED ALWAYS AS (smblat_integer(fields->>'_PID')) STORED,
	ADD COLUMN IF NOT EXISTS function                 text GENERATED ALWAYS AS (fields->>'FUNCTION') STORED,
	ADD COLUMN IF NOT EXISTS layer                    text GENERATED ALWAYS AS (fields->>'LAYER') STORED,
	ADD COLUMN IF NOT EXISTS kernel_function          text GENERATED ALWAYS AS (fields->>'KERNEL_FUNCTION') STORED,
	ADD COLUMN IF NOT EXISTS target                   text GENERATED ALWAYS AS (fields->>'TARGET') STORED,
	ADD COLUMN IF NOT EXISTS latency_us               bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'LATENCY_US')) STORED,
	ADD COLUMN IF NOT EXISTS threshold_us             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'THRESHOLD_US')) STORED,
	ADD COLUMN IF NOT EXISTS fields_dropped           bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'FIELDS_DROPPED')) STORED,
	ADD COLUMN IF NOT EXISTS reason                   text GENERATED ALWAYS AS (fields->>'REASON') STORED,
	ADD COLUMN IF NOT EXISTS end_realtime_usec        bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'END_REALTIME_USEC')) STORED,
	ADD COLUMN IF NOT EXISTS pid                      integer GENERATED ALWAYS AS (smblat_integer(fields->>'PID')) STORED,
	ADD COLUMN IF NOT EXISTS thread_id                integer GENERATED ALWAYS AS (smblat_integer(fields->>'THREAD_ID')) STORED,
	ADD COLUMN IF NOT EXISTS comm                     text GENERATED ALWAYS AS (fields->>'COMM') STORED,
	ADD COLUMN IF NOT EXISTS uid                      bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'UID')) STORED,
	ADD COLUMN IF NOT EXISTS smb_share                text GENERATED ALWAYS AS (fields->>'SMB_SHARE') STORED,
	ADD COLUMN IF NOT EXISTS file                     text GENERATED ALWAYS AS (fields->>'FILE') STORED,
	ADD COLUMN IF NOT EXISTS smb_mid                  bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SMB_MID')) STORED,
	ADD COLUMN IF NOT EXISTS smb_compound             integer GENERATED ALWAYS AS (smblat_integer(fields->>'SMB_COMPOUND')) STORED,
	ADD COLUMN IF NOT EXISTS smb_server               text GENERATED ALWAYS AS (fields->>'SMB_SERVER') STORED,
	ADD COLUMN IF NOT EXISTS smb_status               text GENERATED ALWAYS AS (fields->>'SMB_STATUS') STORED,
	ADD COLUMN IF NOT EXISTS smb2_requests            text GENERATED ALWAYS AS (fields->>'SMB2_REQUESTS') STORED,
	ADD COLUMN IF NOT EXISTS smb2_request_count       bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SMB2_REQUEST_COUNT')) STORED,
	ADD COLUMN IF NOT EXISTS smb2_wire_us             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SMB2_WIRE_US')) STORED,
	ADD COLUMN IF NOT EXISTS smb_session_id           text GENERATED ALWAYS AS (fields->>'SMB_SESSION_ID') STORED,
	ADD COLUMN IF NOT EXISTS smb_tree_id              text GENERATED ALWAYS AS (fields->>'SMB_TREE_ID') STORED,
	ADD COLUMN IF NOT EXISTS smb_async_id             text GENERATED ALWAYS AS (fields->>'SMB_ASYNC_ID') STORED,
	ADD COLUMN IF NOT EXISTS smb_credit_charge        integer GENERATED ALWAYS AS (smblat_integer(fields->>'SMB_CREDIT_CHARGE')) STORED,
	ADD COLUMN IF NOT EXISTS smb_credits_requested    integer GENERATED ALWAYS AS (smblat_integer(fields->>'SMB_CREDITS_REQUESTED')) STORED,
	ADD COLUMN IF NOT EXISTS smb_credits_granted      integer GENERATED ALWAYS AS (smblat_integer(fields->>'SMB_CREDITS_GRANTED')) STORED,
	ADD COLUMN IF NOT EXISTS smb2_send_us             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SMB2_SEND_US')) STORED,
	ADD COLUMN IF NOT EXISTS smb2_roundtrip_us        bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SMB2_ROUNDTRIP_US')) STORED,
	ADD COLUMN IF NOT EXISTS smb2_wake_us             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SMB2_WAKE_US')) STORED,
	ADD COLUMN IF NOT EXISTS smb_conn_id              text GENERATED ALWAYS AS (fields->>'SMB_CONN_ID') STORED,
	ADD COLUMN IF NOT EXISTS smb_command              text GENERATED ALWAYS AS (fields->>'SMB_COMMAND') STORED,
	ADD COLUMN IF NOT EXISTS smb_credits              integer GENERATED ALWAYS AS (smblat_integer(fields->>'SMB_CREDITS')) STORED,
	ADD COLUMN IF NOT EXISTS smb_credits_needed       integer GENERATED ALWAYS AS (smblat_integer(fields->>'SMB_CREDITS_NEEDED')) STORED,
	ADD COLUMN IF NOT EXISTS smb_in_flight            integer GENERATED ALWAYS AS (smblat_integer(fields->>'SMB_IN_FLIGHT')) STORED,
	ADD COLUMN IF NOT EXISTS smb_stall                text GENERATED ALWAYS AS (fields->>'SMB_STALL') STORED,
	ADD COLUMN IF NOT EXISTS errno                    integer GENERATED ALWAYS AS (smblat_integer(fields->>'ERRNO')) STORED,
	ADD COLUMN IF NOT EXISTS errno_name               text GENERATED ALWAYS AS (fields->>'ERRNO_NAME') STORED,
	ADD COLUMN IF NOT EXISTS retval                   text GENERATED ALWAYS AS (fields->>'RETVAL') STORED,
	ADD COLUMN IF NOT EXISTS args                     text GENERATED ALWAYS AS (fields->>'ARGS') STORED,
	ADD COLUMN IF NOT EXISTS disk                     text GENERATED ALWAYS AS (fields->>'DISK') STORED,
	ADD COLUMN IF NOT EXISTS op                       text GENERATED ALWAYS AS (fields->>'OP') STORED,
	ADD COLUMN IF NOT EXISTS bytes                    bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'BYTES')) STORED,
	ADD COLUMN IF NOT EXISTS sector                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SECTOR')) STORED,
	ADD COLUMN IF NOT EXISTS queue_us                 bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'QUEUE_US')) STORED,
	ADD COLUMN IF NOT EXISTS stack                    text GENERATED ALWAYS AS (fields->>'STACK') STORED,
	ADD COLUMN IF NOT EXISTS stack_folded             text GENERATED ALWAYS AS (fields->>'STACK_FOLDED') STORED,
	ADD COLUMN IF NOT EXISTS stack_unwind             text GENERATED ALWAYS AS (fields->>'STACK_UNWIND') STORED,
	ADD COLUMN IF NOT EXISTS interval_s               double precision GENERATED ALWAYS AS (smblat_double(fields->>'INTERVAL_S')) STORED,
	ADD COLUMN IF NOT EXISTS count                    bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'COUNT')) STORED,
	ADD COLUMN IF NOT EXISTS total_us                 bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'TOTAL_US')) STORED,
	ADD COLUMN IF NOT EXISTS min_us                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'MIN_US')) STORED,
	ADD COLUMN IF NOT EXISTS avg_us                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'AVG_US')) STORED,
	ADD COLUMN IF NOT EXISTS max_us                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'MAX_US')) STORED,
	ADD COLUMN IF NOT EXISTS p50_us                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'P50_US')) STORED,
	ADD COLUMN IF NOT EXISTS p90_us                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'P90_US')) STORED,
	ADD COLUMN IF NOT EXISTS p99_us                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'P99_US')) STORED,
	ADD COLUMN IF NOT EXISTS slow_count               bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SLOW_COUNT')) STORED,
	ADD COLUMN IF NOT EXISTS hist                     text GENERATED ALWAYS AS (fields->>'HIST') STORED,
	ADD COLUMN IF NOT EXISTS syscall                  text GENERATED ALWAYS AS (fields->>'SYSCALL') STORED,
	ADD COLUMN IF NOT EXISTS errors                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'ERRORS')) STORED,
	ADD COLUMN IF NOT EXISTS errno_count              bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'ERRNO_COUNT')) STORED,
	ADD COLUMN IF NOT EXISTS errnos                   text GENERATED ALWAYS AS (fields->>'ERRNOS') STORED,
	ADD COLUMN IF NOT EXISTS stack_rank               integer GENERATED ALWAYS AS (smblat_integer(fields->>'STACK_RANK')) STORED,
	ADD COLUMN IF NOT EXISTS stacks                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'STACKS')) STORED,
	ADD COLUMN IF NOT EXISTS stacks_lost              bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'STACKS_LOST')) STORED,
	ADD COLUMN IF NOT EXISTS offcpu_us                bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'OFFCPU_US')) STORED,
	ADD COLUMN IF NOT EXISTS oncpu_us                 bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'ONCPU_US')) STORED,
	ADD COLUMN IF NOT EXISTS offcpu_class             text GENERATED ALWAYS AS (fields->>'OFFCPU_CLASS') STORED,
	ADD COLUMN IF NOT EXISTS wall_us                  bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'WALL_US')) STORED,
	ADD COLUMN IF NOT EXISTS wait_us                  bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'WAIT_US')) STORED,
	ADD COLUMN IF NOT EXISTS recv_us                  bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'RECV_US')) STORED,
	ADD COLUMN IF NOT EXISTS parse_us                 bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'PARSE_US')) STORED,
	ADD COLUMN IF NOT EXISTS run_us                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'RUN_US')) STORED,
	ADD COLUMN IF NOT EXISTS run_io_us                bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'RUN_IO_US')) STORED,
	ADD COLUMN IF NOT EXISTS send_us                  bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SEND_US')) STORED,
	ADD COLUMN IF NOT EXISTS ctdb_us                  bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'CTDB_US')) STORED,
	ADD COLUMN IF NOT EXISTS other_us                 bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'OTHER_US')) STORED,
	ADD COLUMN IF NOT EXISTS syscall_us               bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SYSCALL_US')) STORED,
	ADD COLUMN IF NOT EXISTS syscalls                 bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SYSCALLS')) STORED,
	ADD COLUMN IF NOT EXISTS disk_read_us             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'DISK_READ_US')) STORED,
	ADD COLUMN IF NOT EXISTS disk_reads               bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'DISK_READS')) STORED,
	ADD COLUMN IF NOT EXISTS disk_write_us            bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'DISK_WRITE_US')) STORED,
	ADD COLUMN IF NOT EXISTS disk_writes              bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'DISK_WRITES')) STORED,
	ADD COLUMN IF NOT EXISTS events                   bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'EVENTS')) STORED,
	ADD COLUMN IF NOT EXISTS events_fd                bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'EVENTS_FD')) STORED,
	ADD COLUMN IF NOT EXISTS events_timer             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'EVENTS_TIMER')) STORED,
	ADD COLUMN IF NOT EXISTS events_immediate         bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'EVENTS_IMMEDIATE')) STORED,
	ADD COLUMN IF NOT EXISTS events_signal            bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'EVENTS_SIGNAL')) STORED,
	ADD COLUMN IF NOT EXISTS requests                 bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'REQUESTS')) STORED,
	ADD COLUMN IF NOT EXISTS ctdb_calls               bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'CTDB_CALLS')) STORED,
	ADD COLUMN IF NOT EXISTS recvs                    bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'RECVS')) STORED,
	ADD COLUMN IF NOT EXISTS sends                    bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SENDS')) STORED,
	ADD COLUMN IF NOT EXISTS loop_threads             integer GENERATED ALWAYS AS (smblat_integer(fields->>'LOOP_THREADS')) STORED,
	ADD COLUMN IF NOT EXISTS smb_client               text GENERATED ALWAYS AS (fields->>'SMB_CLIENT') STORED,
	ADD COLUMN IF NOT EXISTS smbd_exit_reason         text GENERATED ALWAYS AS (fields->>'SMBD_EXIT_REASON') STORED,
	ADD COLUMN IF NOT EXISTS smbd_exit_how            text GENERATED ALWAYS AS (fields->>'SMBD_EXIT_HOW') STORED,
	ADD COLUMN IF NOT EXISTS smbd_exit_location       text GENERATED ALWAYS AS (fields->>'SMBD_EXIT_LOCATION') STORED,
	ADD COLUMN IF NOT EXISTS smbd_exit_unread         text GENERATED ALWAYS AS (fields->>'SMBD_EXIT_UNREAD') STORED,
	ADD COLUMN IF NOT EXISTS exit_status              integer GENERATED ALWAYS AS (smblat_integer(fields->>'EXIT_STATUS')) STORED,
	ADD COLUMN IF NOT EXISTS exit_signal              integer GENERATED ALWAYS AS (smblat_integer(fields->>'EXIT_SIGNAL')) STORED,
	ADD COLUMN IF NOT EXISTS exit_signal_name         text GENERATED ALWAYS AS (fields->>'EXIT_SIGNAL_NAME') STORED,
	ADD COLUMN IF NOT EXISTS last_error_syscall       text GENERATED ALWAYS AS (fields->>'LAST_ERROR_SYSCALL') STORED,
	ADD COLUMN IF NOT EXISTS last_error_errno         integer GENERATED ALWAYS AS (smblat_integer(fields->>'LAST_ERROR_ERRNO')) STORED,
	ADD COLUMN IF NOT EXISTS last_error_errno_name    text GENERATED ALWAYS AS (fields->>'LAST_ERROR_ERRNO_NAME') STORED,
	ADD COLUMN IF NOT EXISTS last_error_ago_us        bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'LAST_ERROR_AGO_US')) STORED,
	ADD COLUMN IF NOT EXISTS ppid                     integer GENERATED ALWAYS AS (smblat_integer(fields->>'PPID')) STORED,
	ADD COLUMN IF NOT EXISTS lease_key                text GENERATED ALWAYS AS (fields->>'LEASE_KEY') STORED,
	ADD COLUMN IF NOT EXISTS break_from               text GENERATED ALWAYS AS (fields->>'BREAK_FROM') STORED,
	ADD COLUMN IF NOT EXISTS break_to                 text GENERATED ALWAYS AS (fields->>'BREAK_TO') STORED,
	ADD COLUMN IF NOT EXISTS breakdown_layer          text GENERATED ALWAYS AS (fields->>'BREAKDOWN_LAYER') STORED,
	ADD COLUMN IF NOT EXISTS lost_ringbuf             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'LOST_RINGBUF')) STORED,
	ADD COLUMN IF NOT EXISTS untimed                  bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'UNTIMED')) STORED,
	ADD COLUMN IF NOT EXISTS recursion_misses         bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'RECURSION_MISSES')) STORED,
	ADD COLUMN IF NOT EXISTS suppressed               bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'SUPPRESSED')) STORED,
	ADD COLUMN IF NOT EXISTS write_failed             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'WRITE_FAILED')) STORED,
	ADD COLUMN IF NOT EXISTS lost_functions           text GENERATED ALWAYS AS (fields->>'LOST_FUNCTIONS') STORED,
	ADD COLUMN IF NOT EXISTS layer_state              text GENERATED ALWAYS AS (fields->>'LAYER_STATE') STORED,
	ADD COLUMN IF NOT EXISTS attached                 bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'ATTACHED')) STORED,
	ADD COLUMN IF NOT EXISTS not_attached             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'NOT_ATTACHED')) STORED,
	ADD COLUMN IF NOT EXISTS detached                 bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'DETACHED')) STORED,
	ADD COLUMN IF NOT EXISTS probes_added             bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'PROBES_ADDED')) STORED,
	ADD COLUMN IF NOT EXISTS probes_removed           bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'PROBES_REMOVED')) STORED,
	ADD COLUMN IF NOT EXISTS probes_kept              bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'PROBES_KEPT')) STORED,
	ADD COLUMN IF NOT EXISTS probes_failed            bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'PROBES_FAILED')) STORED,
	ADD COLUMN IF NOT EXISTS entries_written          bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'ENTRIES_WRITTEN')) STORED,
	ADD COLUMN IF NOT EXISTS entries_failed           bigint GENERATED ALWAYS AS (smblat_bigint(fields->>'ENTRIES_FAILED')) STORED;

CREATE INDEX IF NOT EXISTS smblat_entry_event_time ON smblat_entry (event_time);
CREATE INDEX IF NOT EXISTS smblat_entry_function ON smblat_entry (function, event_time);
