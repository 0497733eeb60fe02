/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one table of MESSAGE_IDs: every kind of journal entry the agent
 * writes, each documented in the catalog (units/smblat.catalog).
 */
#pragma once

#define SMBLAT_MID_SLOW "a48f35af155e4887a8d221f2a9c1c250"
#define SMBLAT_MID_SUMMARY "ab8331e2b4474579a55840c9d3a77bac"
#define SMBLAT_MID_LOST "007f72e0507d4b96b52049ce539ad083"
/* Status entries, one per enum status_kind (base/log.h). */
#define SMBLAT_MID_AGENT_START "34875d28e8d74ae0835d1a43ea797a29"
#define SMBLAT_MID_AGENT_READY "6d4a741edd5141d1b887a019dbc27c13"
#define SMBLAT_MID_AGENT_STOP "000a570d70c34918a2d2b92626a85235"
#define SMBLAT_MID_AGENT_FAILED "d9f0e7479be54e2a93402d20c058f2d9"
#define SMBLAT_MID_AGENT_DEGRADED "4114fad0ff2740eca80cf1ac940e44d6"
#define SMBLAT_MID_LAYER_ATTACHED "70f3a1c5e2d349b5852ba8ebaca7f03f"
/* the ID all status entries shared before they had kinds; "cifs module unloaded" kept it */
#define SMBLAT_MID_LAYER_WAITING "7106711428c445b698f0b7f8871465e2"
#define SMBLAT_MID_LAYER_UNAVAILABLE "4785c1bdd50f433086649b46c3453a80"
#define SMBLAT_MID_LAYER_OFF "fb55e150488c49ce9e5fc54896673a65"
#define SMBLAT_MID_PROBE_ATTACHED "d64263b995be464ea9494a9f48ca0fde"
#define SMBLAT_MID_PROBE_WAITING "4111a39f587b4b4386b8024ac5b749ee"
#define SMBLAT_MID_PROBE_FAILED "54f66d96cd1445c1a2a205ae99a3daaa"
#define SMBLAT_MID_RELOAD_APPLIED "14507de9f48d4e27ad9cec800b9e680e"
#define SMBLAT_MID_RELOAD_REFUSED "41cf10865b7c4f0b81d93775fba5fb15"
#define SMBLAT_MID_WRITER_FAILING "38cbbbc494e840b499b4ed7043bb2219"
#define SMBLAT_MID_WRITER_RESUMED "dfa753592cc54982a469608e72db4a98"
/* The entries of the views beside the latency histograms. */
#define SMBLAT_MID_SYSCALLS "37696141c77044bb90174634b6002f95" /* per-syscall accounting summary */
#define SMBLAT_MID_STACKS "29fff22de3004d9c8fdf70318b61193f"   /* a counted stack of a FUNCTION */
#define SMBLAT_MID_OFFCPU "11b150a9ad4f43938f3c7ca311c0eec3"   /* an off-CPU stack of a FUNCTION */
#define SMBLAT_MID_SPLIT "2610ed9fe5674be1b0126b87a071d042"    /* an smbd's time split */
#define SMBLAT_MID_EXIT "3aefbceff9ca401c9d1fb860c0bd08d8"     /* an smbd process exited */
#define SMBLAT_MID_BREAK "06e3d38cf4f04c3c8e16f9276e76cd63"    /* an oplock or lease break answered */
/* SMB connection events (smb2 layer) */
#define SMBLAT_MID_SMB_RECONNECT "a936ebed06754f1283b3c504570f470f"
#define SMBLAT_MID_SMB_SESSION_SETUP "f95b658a9a114ac2b5a319ebdff7e4e1"
#define SMBLAT_MID_SMB_LOGOFF "6ac0619b14644612bd95457ad7005318"
#define SMBLAT_MID_SMB_SESSION_EXPIRED "895ca5666f9041d3bee0c9778ef5d300"
#define SMBLAT_MID_SMB_TREE_CONNECT "2e39dd28181a468bbe618a3a021c98ed"
#define SMBLAT_MID_SMB_CREDIT_STALL "28dcdd6eb1ea44efbc89c1b9de94d738"
#define SMBLAT_MID_SMB_SLOW_RESPONSE "aa3cc49f94e7446e82bc583a55646de4"
/* views: summaries per share and per server, the per-layer breakdown */
#define SMBLAT_MID_SHARE_SUMMARY "3fc21a16f1424ec8a54fe2f452147959"
#define SMBLAT_MID_SERVER_SUMMARY "e78ca87a34de4a1da3e39d418e9302a2"
#define SMBLAT_MID_BREAKDOWN "951a530d517b48cca8e44bac27398543"
