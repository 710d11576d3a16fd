// SPDX-License-Identifier: MIT
/*
 * The kcdata types whose layout we know, written as one line of text each.
 *
 * Each entry gives the type id, the name libkdd uses for it and its fields in a small
 * layout language, parsed when a type is first needed:
 *
 *     layout  := field { ";" field }          (empty: a container type, no fields)
 *     field   := [ "+" | "!" ] kind [ "[" count "]" ] name [ "@" offset ]
 *     kind    := c | i8 | u8 | i16 | u16 | i32 | u32 | i64 | u64
 *
 * count "*" means 65535 (a string or byte run as long as the item); "+" marks a field
 * to be merged into the parent dictionary, "!" forces a one-field type to be a
 * structure. Fields are packed: a field without "@offset" starts where the previous
 * one ended. Names are at most 31 bytes, cut where the kernel's names are longer.
 *
 * The facts (ids, names, field order, sizes) come from xnu's kcdata.h and the type
 * knowledge of libkdd (xnu-8020 for the stackshot, crash info, exit reason and test
 * config types; later xnu releases for the shared cache, exclave and code-signing
 * types), plus the backtrace-info (BTINFO) types, which libkdd does not describe and
 * whose names are ours.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcdata/kcdata_int.h"

struct kc_spec {
	uint32_t id;
	const char *name;
	const char *layout;
};

#define STRING(n) "c[*] " n
#define UUID(n) "u8[16] " n

static const struct kc_spec specs[] = {
	/* data with description: the "desc" string names the "data" value */
	{ 0x01, "string_desc",  "c[32] desc; c[*] data" },
	{ 0x02, "uint32_desc",  "c[32] desc; u32 data" },
	{ 0x03, "uint64_desc",  "c[32] desc; u64 data" },
	{ 0x04, "int32_desc",   "c[32] desc; i32 data" },
	{ 0x05, "int64_desc",   "c[32] desc; i64 data" },
	{ 0x12, "typedef",      "u32 typeID; u32 numOfFields; c[32] name" },
	{ 0x13, "container_begin", "u32 kcContainerType" },

	/* generic types */
	{ 0x30, "dyld_load_info", "u32 imageLoadAddress; " UUID("imageUUID") },
	{ 0x31, "dyld_load_info", "u64 imageLoadAddress; " UUID("imageUUID") },
	{ 0x32, "mach_timebase_info", "u32 numer; u32 denom" },
	{ 0x33, "mach_absolute_time", "u64 mach_absolute_time" },
	{ 0x34, "timeval", "i64 tv_sec; i64 tv_usec" },
	{ 0x35, "usecs_since_epoch", "u64 usecs_since_epoch" },
	{ 0x36, "pid", "i32 pid" },
	{ 0x37, "proc_name", "c[64] proc_name" },
	{ 0x39, "dyld_aot_info",
	  "u64 x86LoadAddress; u64 aotLoadAddress; u64 aotImageSize; u8[32] aotImageKey" },

	/* crash info (corpses) */
	{ 0x802, "proc_uniqidentifierinfo", UUID("p_uuid") "; u64 p_uniqueid; u64 p_puniqueid" },
	{ 0x805, "pid", "i32 pid" },
	{ 0x806, "ppid", "i32 ppid" },
	{ 0x808, "rusage_info",
	  UUID("ri_uuid") "; u64 ri_user_time; u64 ri_system_time; u64 ri_pkg_idle_wkups;"
	  "u64 ri_interrupt_wkups; u64 ri_pageins; u64 ri_wired_size; u64 ri_resident_size;"
	  "u64 ri_phys_footprint; u64 ri_proc_start_abstime; u64 ri_proc_exit_abstime;"
	  "u64 ri_child_user_time; u64 ri_child_system_time; u64 ri_child_pkg_idle_wkups;"
	  "u64 ri_child_interrupt_wkups; u64 ri_child_pageins; u64 ri_child_elapsed_abstime;"
	  "u64 ri_diskio_bytesread; u64 ri_diskio_byteswritten; u64 ri_cpu_time_qos_default;"
	  "u64 ri_cpu_time_qos_maintenance; u64 ri_cpu_time_qos_background;"
	  "u64 ri_cpu_time_qos_utility; u64 ri_cpu_time_qos_legacy;"
	  "u64 ri_cpu_time_qos_user_initiated; u64 ri_cpu_time_qos_user_interactiv;"
	  "u64 ri_billed_system_time; u64 ri_serviced_system_time" },
	{ 0x809, "p_comm", STRING("p_comm") },
	{ 0x80b, "proc_starttime", "i64 tv_sec; i64 tv_usec" },
	{ 0x80c, "userstack_ptr", "u64 userstack_ptr" },
	{ 0x80d, "p_argslen", "i32 p_argslen" },
	{ 0x80e, "mach_exception_data_t", "u64 code_0; u64 code_1" },
	{ 0x80f, "p_path", STRING("p_path") },
	{ 0x810, "p_csflags", "u32 p_csflags" },
	{ 0x811, "p_status", "u8 p_status" },
	{ 0x812, "uid", "i32 uid" },
	{ 0x813, "gid", "i32 gid" },
	{ 0x814, "argc", "i32 argc" },
	{ 0x815, "p_flags", "u32 p_flags" },
	{ 0x816, "cputype", "i32 cputype" },
	{ 0x818, "responsible_pid", "i32 responsible_pid" },
	{ 0x819, "dirty_flags", "u32 dirty_flags" },
	{ 0x81a, "crashed_threadid", "u64 crashed_threadid" },
	{ 0x81b, "coalition_id", "u64 coalition_id" },
	{ 0x81c, "udata_ptrs", "u64 udata_ptrs" },
	{ 0x81d, "task_phys_mem_limit", "u64 task_phys_mem_limit" },
	{ 0x836, "kernel_triage_info_v1",
	  "c[128] triage_string1; c[128] triage_string2; c[128] triage_string3;"
	  "c[128] triage_string4; c[128] triage_string5" },
	{ 0x837, "task_is_corpse_fork", "u32 task_is_corpse_fork" },
	{ 0x838, "exception_type", "u32 exception_type" },
	{ 0x83b, "cs_signing_id", STRING("cs_signing_id") },
	{ 0x83c, "cs_team_id", STRING("cs_team_id") },
	{ 0x83d, "cs_validation_category", "u32 cs_validation_category" },
	{ 0x83e, "cs_trust_level", "u32 cs_trust_level" },
	{ 0x842, "cs_auxiliary_info", "u64 cs_auxiliary_info" },

	/* stackshots */
	{ 0x901, "io_statistics",
	  "u64 ss_disk_reads_count; u64 ss_disk_reads_size; u64 ss_disk_writes_count;"
	  "u64 ss_disk_writes_size; u64[4] ss_io_priority_count; u64[4] ss_io_priority_size;"
	  "u64 ss_paging_count; u64 ss_paging_size; u64 ss_non_paging_count;"
	  "u64 ss_non_paging_size; u64 ss_data_count; u64 ss_data_size;"
	  "u64 ss_metadata_count; u64 ss_metadata_size" },
	{ 0x902, "mem_and_io_snapshot",
	  "u32 snapshot_magic; u32 free_pages; u32 active_pages; u32 inactive_pages;"
	  "u32 purgeable_pages; u32 wired_pages; u32 speculative_pages; u32 throttled_pages;"
	  "u32 filebacked_pages; u32 compressions; u32 decompressions; u32 compressor_size;"
	  "u32 busy_buffer_count; u32 pages_wanted; u32 pages_reclaimed;"
	  "u8 pages_wanted_reclaimed_valid" },
	{ 0x903, "task_snapshots", "" },
	{ 0x904, "thread_snapshots", "" },
	{ 0x905, "task_snapshot",
	  "u64 ts_unique_pid; u64 ts_ss_flags; u64 ts_user_time_in_terminated_thre;"
	  "u64 ts_system_time_in_terminated_th; u64 ts_p_start_sec; u64 ts_task_size;"
	  "u64 ts_max_resident_size; u32 ts_suspend_count; u32 ts_faults; u32 ts_pageins;"
	  "u32 ts_cow_faults; u32 ts_was_throttled; u32 ts_did_throttle; u32 ts_latency_qos;"
	  "i32 ts_pid; c[32] ts_p_comm" },
	{ 0x906, "thread_snapshot",
	  "u64 ths_thread_id; u64 ths_wait_event; u64 ths_continuation; u64 ths_total_syscalls;"
	  "u64 ths_voucher_identifier; u64 ths_dqserialnum; u64 ths_user_time;"
	  "u64 ths_sys_time; u64 ths_ss_flags; u64 ths_last_run_time;"
	  "u64 ths_last_made_runnable_time; u32 ths_state; u32 ths_sched_flags;"
	  "i16 ths_base_priority; i16 ths_sched_priority; u8 ths_eqos; u8 ths_rqos;"
	  "u8 ths_rqos_override; u8 ths_io_tier; u64 ths_thread_t; u64 ths_requested_policy;"
	  "u64 ths_effective_policy" },
	{ 0x907, "donating_pids", "i32 donating_pids" },
	{ 0x908, "shared_cache_dyld_load_info",
	  "u64 imageLoadAddress; " UUID("imageUUID") "; u64 imageSlidBaseAddress;"
	  "u64 sharedCacheSlidFirstMapping; u32 sharedCacheID; u32 sharedCacheFlags" },
	{ 0x909, "pth_name", "c[64] pth_name" },
	{ 0x90a, "kernel_stack_frames", "u32 lr; u32 sp" },
	{ 0x90b, "kernel_stack_frames", "u64 lr; u64 sp" },
	{ 0x90c, "user_stack_frames", "u32 lr; u32 sp" },
	{ 0x90d, "user_stack_frames", "u64 lr; u64 sp" },
	{ 0x90e, "boot_args", STRING("boot_args") },
	{ 0x90f, "osversion", STRING("osversion") },
	{ 0x910, "kernel_page_size", "u32 kernel_page_size" },
	{ 0x911, "jetsam_level", "u32 jetsam_level" },
	{ 0x912, "stackshot_delta_since_timestamp", "u64 stackshot_delta_since_timestamp" },
	{ 0x913, "kernel_stack_frames", "!u32 lr" },
	{ 0x914, "kernel_stack_frames", "!u64 lr" },
	{ 0x915, "user_stack_frames", "!u32 lr" },
	{ 0x916, "user_stack_frames", "!u64 lr" },
	{ 0x917, "nonrunnable_threads", "i64 nonrunnable_threads" },
	{ 0x918, "nonrunnable_tasks", "i64 nonrunnable_tasks" },
	{ 0x919, "cpu_times", "u64 user_usec; u64 system_usec; u64 runnable_usec" },
	{ 0x91a, "stackshot_duration",
	  "+u64 stackshot_duration; +u64 stackshot_duration_outer; +u64 stackshot_duration_prior" },
	{ 0x91b, "stackshot_fault_stats",
	  "u32 sfs_pages_faulted_in; u64 sfs_time_spent_faulting;"
	  "u64 sfs_system_max_fault_time; u8 sfs_stopped_faulting" },
	{ 0x91c, "kernelcache_load_info", "u64 imageLoadAddress; " UUID("imageUUID") },
	{ 0x91d, "thread_waitinfo",
	  "u64 owner; u64 waiter; u64 context; u8 wait_type; i16 portlabel_id; u32 wait_flags" },
	{ 0x91e, "thread_group_snapshot",
	  "u64 tgs_id; c[16] tgs_name; u64 tgs_flags; c[16] tgs_name_cont" },
	{ 0x91f, "thread_group", "u64 thread_group" },
	{ 0x920, "jetsam_coalition_snapshot",
	  "u64 jcs_id; u64 jcs_flags; u64 jcs_thread_group; u64 jcs_leader_task_uniqueid" },
	{ 0x921, "jetsam_coalition", "u64 jetsam_coalition" },
	{ 0x922, "thread_policy_version", "u32 thread_policy_version" },
	{ 0x923, "instrs_cycles_snapshot",
	  "u64 ics_instructions; u64 ics_cycles; u64 ics_p_instructions; u64 ics_p_cycles" },
	{ 0x924, "user_stacktop", "u64 sp; u8[8] stack_contents" },
	{ 0x925, "ts_asid", "u32 ts_asid" },
	{ 0x926, "ts_pagetable", "u64 ts_pagetable" },
	{ 0x927, "system_shared_cache_layout", "u64 imageLoadAddress; " UUID("imageUUID") },
	{ 0x928, "dispatch_queue_label", STRING("dispatch_queue_label") },
	{ 0x929, "thread_turnstileinfo",
	  "u64 waiter; u64 turnstile_context; u8 turnstile_priority; u8 number_of_hops;"
	  "u64 turnstile_flags; i16 portlabel_id" },
	{ 0x92a, "task_cpu_architecture", "i32 cputype; i32 cpusubtype" },
	{ 0x92b, "stackshot_latency_collection",
	  "u64 latency_version; u64 setup_latency; u64 total_task_iteration_latency;"
	  "u64 total_terminated_task_iteration" },
	{ 0x92c, "stackshot_latency_task",
	  "u64 task_uniqueid; u64 setup_latency; u64 task_thread_count_loop_latency;"
	  "u64 task_thread_data_loop_latency; u64 cur_tsnap_latency; u64 pmap_latency;"
	  "u64 bsd_proc_ids_latency; u64 misc_latency; u64 misc2_latency; u64 end_latency" },
	{ 0x92d, "stackshot_latency_thread",
	  "u64 thread_id; u64 cur_thsnap1_latency; u64 dispatch_serial_latency;"
	  "u64 dispatch_label_latency; u64 cur_thsnap2_latency; u64 thread_name_latency;"
	  "u64 sur_times_latency; u64 user_stack_latency; u64 kernel_stack_latency;"
	  "u64 misc_latency" },
	{ 0x92e, "dyld_load_info_text_exec", "u64 imageLoadAddress; " UUID("imageUUID") },
	{ 0x92f, "dyld_aot_cache_uuid_info",
	  "u64 x86SlidBaseAddress; " UUID("x86UUID") "; u64 aotSlidBaseAddress; " UUID("aotUUID") },
	{ 0x930, "transitioning_task_snapshot",
	  "u64 tts_unique_pid; u64 tts_ss_flags; u64 tts_transition_type; i32 tts_pid;"
	  "c[32] tts_p_comm" },
	{ 0x931, "transitioning_task_snapshots", "" },
	{ 0x932, "user_async_start_index", "u32 user_async_start_index" },
	{ 0x933, "user_async_stack_frames", "!u64 lr" },
	{ 0x934, "portlabels", "" },
	{ 0x935, "portlabel_info", "+i16 portlabel_id; +u16 portlabel_flags; +i8 portlabel_domain" },
	{ 0x936, "portlabel_name", STRING("portlabel_name") },
	{ 0x940, "task_delta_snapshot",
	  "u64 tds_unique_pid; u64 tds_ss_flags; u64 tds_user_time_in_terminated_thr;"
	  "u64 tds_system_time_in_terminated_t; u64 tds_task_size; u64 tds_max_resident_size;"
	  "u32 tds_suspend_count; u32 tds_faults; u32 tds_pageins; u32 tds_cow_faults;"
	  "u32 tds_was_throttled; u32 tds_did_throttle; u32 tds_latency_qos" },
	{ 0x941, "thread_delta_snapshot",
	  "u64 tds_thread_id; u64 tds_voucher_identifier; u64 tds_ss_flags;"
	  "u64 tds_last_made_runnable_time; u32 tds_state; u32 tds_sched_flags;"
	  "i16 tds_base_priority; i16 tds_sched_priority; u8 tds_eqos; u8 tds_rqos;"
	  "u8 tds_rqos_override; u8 tds_io_tier; u64 tds_requested_policy;"
	  "u64 tds_effective_policy" },
	{ 0x942, "shared_caches", "" },
	{ 0x943, "shared_cache_dyld_load_info",
	  "u64 sharedCacheSlide; " UUID("sharedCacheUUID") "; u64 sharedCacheUnreliableSlidBaseAd;"
	  "u64 sharedCacheSlidFirstMapping; u32 sharedCacheID; u32 sharedCacheFlags" },
	{ 0x944, "dyld_aot_cache_uuid_info",
	  "u64 x86SlidBaseAddress; " UUID("x86UUID") "; u64 aotSlidBaseAddress; " UUID("aotUUID") },
	{ 0x945, "sharedCacheID", "i32 sharedCacheID" },
	{ 0x946, "stackshot_task_codesigning_info", "u64 csflags; u32 cs_trust_level" },
	{ 0x947, "os_build_version", STRING("os_build_version") },
	{ 0x948, "exclaves_thread_info", "u64 tei_scid; u32 tei_thread_offset; u32 tei_flags" },
	{ 0x949, "threads_exclave", "" },
	{ 0x94a, "thread_exclave", "" },
	{ 0x94b, "exclave_scresult_info", "u64 esc_id; u64 esc_flags" },
	{ 0x94c, "exclave_ipcstackentry", "" },
	{ 0x94d, "exclave_ipcstackentry_info",
	  "u64 eise_asid; u64 eise_tnid; u64 eise_invocationid; u64 eise_flags" },
	{ 0x94e, "secure_ecstack_entry", "!u64 lr" },
	{ 0x94f, "exclave_addressspace", "" },
	{ 0x950, "exclave_addressspace_info",
	  "u64 eas_id; u64 eas_flags; u64 eas_layoutid; u64 eas_slide; u64 eas_asroot" },
	{ 0x951, "exclave_addressspace_name", STRING("exclave_addressspace_name") },
	{ 0x952, "exclave_textlayout", "" },
	{ 0x953, "exclave_textlayout_info", "u64 layout_id; u64 etl_flags; u32 sharedcache_index" },
	{ 0x954, "exclave_textlayout_segments",
	  UUID("layoutSegment_uuid") "; u64 layoutSegment_loadAddress;"
	  "u64 layoutSegment_rawLoadAddress" },
	{ 0x955, "exclaves_crash_thread_info", "u64 tcei_scid; u64 tcei_thread_id; u32 tcei_flags" },

	/* backtrace info (names are ours: libkdd does not know these types) */
	{ 0xa01, "pid", "i32 pid" },
	{ 0xa02, "ppid", "i32 ppid" },
	{ 0xa03, "p_comm", STRING("p_comm") },
	{ 0xa04, "p_path", STRING("p_path") },
	{ 0xa05, "uid", "i32 uid" },
	{ 0xa06, "gid", "i32 gid" },
	{ 0xa07, "p_flags", "u32 p_flags" },
	{ 0xa08, "cputype", "i32 cputype" },
	{ 0xa09, "mach_exception_data_t", "u64 code_0; u64 code_1" },
	{ 0xa0a, "exception_type", "u32 exception_type" },
	{ 0xa0b, "rusage_info", NULL },         /* same layout as 0x808 */
	{ 0xa0c, "coalition_id", "u64 coalition_id" },
	{ 0xa0d, "crash_count", "i32 crash_count" },
	{ 0xa0e, "throttle_timeout", "i32 throttle_timeout" },
	{ 0xa20, "thread_id", "u64 thread_id" },
	{ 0xa21, "pth_name", STRING("pth_name") },
	{ 0xa22, "thread_state", "u32 flavor; u32 count; u32[*] tstate" },
	{ 0xa23, "thread_exception_state", "u32 flavor; u32 count; u32[*] tstate" },
	{ 0xa24, "backtrace", "u32 backtrace" },
	{ 0xa25, "backtrace", "u64 backtrace" },
	{ 0xa26, "async_backtrace", "u64 async_backtrace" },
	{ 0xa27, "async_start_index", "u32 async_start_index" },
	{ 0xa28, "platform", "u32 platform" },
	{ 0xa29, "shared_cache_load_info",
	  "u32 sharedCacheSlide; " UUID("sharedCacheUUID") "; u32 sharedCacheBaseAddress" },
	{ 0xa2a, "shared_cache_load_info",
	  "u64 sharedCacheSlide; " UUID("sharedCacheUUID") "; u64 sharedCacheBaseAddress" },
	{ 0xaff, "btinfo_flags", "u32 btinfo_flags" },


	/* exit reasons */
	{ 0x1001, "exit_reason_basic_info", "u32 ers_namespace; u64 ers_code; u64 ers_flags" },
	{ 0x1002, "exit_reason_user_description", STRING("exit_reason_user_description") },
	{ 0x1003, "exit_reason_user_payload", "u8[2048] exit_reason_user_payload" },
	{ 0x1004, "exit_reason_codesigning_info",
	  "u64 ceri_virt_addr; u64 ceri_file_offset; c[1024] ceri_pathname;"
	  "c[1024] ceri_filename; u64 ceri_codesig_modtime_secs; u64 ceri_codesig_modtime_nsecs;"
	  "u64 ceri_page_modtime_secs; u64 ceri_page_modtime_nsecs; u8 ceri_path_truncated;"
	  "u8 ceri_object_codesigned; u8 ceri_page_codesig_validated;"
	  "u8 ceri_page_codesig_tainted; u8 ceri_page_codesig_nx; u8 ceri_page_wpmapped;"
	  "u8 ceri_page_slid; u8 ceri_page_dirty; u32 ceri_page_shadow_depth" },
	{ 0x1005, "exit_reason_workloop_id", "u64 exit_reason_workloop_id" },
	{ 0x1006, "exit_reason_dispatch_queue_no", "u64 exit_reason_dispatch_queue_no" },

	/* XNU POST test configurations (buffers carry this definition themselves too) */
	{ 0x1040, "xnupost_test_config",
	  "u16 config; u16 test_num; i32 retval; i32 expected_retval; u64 begin_time;"
	  "u64 end_time; c[132] test_name" },
};

static const struct kc_spec *find_spec(uint32_t id)
{
	size_t lo = 0, hi = sizeof(specs) / sizeof(specs[0]);

	/* The table is sorted by id (checked by the unit tests). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (specs[mid].id == id)
			return &specs[mid];
		if (specs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *spec_layout(const struct kc_spec *s)
{
	if (!s->layout) {               /* an alias of the same-named crash info type */
		if (!strcmp(s->name, "rusage_info"))
			return find_spec(0x808)->layout;
		return "";
	}
	return s->layout;
}

unsigned int kc_subtype_width(uint8_t elem_type)
{
	switch (elem_type) {
	case KCDATA_ST_CHAR: case KCDATA_ST_INT8: case KCDATA_ST_UINT8: return 1;
	case KCDATA_ST_INT16: case KCDATA_ST_UINT16: return 2;
	case KCDATA_ST_INT32: case KCDATA_ST_UINT32: return 4;
	case KCDATA_ST_INT64: case KCDATA_ST_UINT64: return 8;
	}
	return 0;
}

const char *kc_subtype_name(uint8_t elem_type)
{
	static const char *const names[] = {
		NULL, "char", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
		"int64_t", "uint64_t",
	};

	if (elem_type >= 1 && elem_type <= 9)
		return names[elem_type];
	return "Unknown";
}

static const char *skip_spaces(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* Parses one field at p into f (advancing *offset); returns the position after it, or
 * NULL on a malformed layout (a bug in the table, caught by the unit tests). */
static const char *parse_field(const char *p, struct kc_field *f, uint32_t *offset)
{
	static const struct { const char *tok; uint8_t type; } kinds[] = {
		{ "c", KCDATA_ST_CHAR }, { "i8", KCDATA_ST_INT8 }, { "u8", KCDATA_ST_UINT8 },
		{ "i16", KCDATA_ST_INT16 }, { "u16", KCDATA_ST_UINT16 }, { "i32", KCDATA_ST_INT32 },
		{ "u32", KCDATA_ST_UINT32 }, { "i64", KCDATA_ST_INT64 }, { "u64", KCDATA_ST_UINT64 },
	};
	uint32_t count = 1, width;
	size_t n, k;

	memset(f, 0, sizeof(*f));
	p = skip_spaces(p);
	if (*p == '+') {
		f->flags |= KCDATA_SUBTYPE_FLAG_MERGE;
		p++;
	} else if (*p == '!') {
		f->flags |= KCDATA_SUBTYPE_FLAG_STRUCT;
		p++;
	}
	n = strcspn(p, "[ ");
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (strlen(kinds[k].tok) == n && !strncmp(p, kinds[k].tok, n))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return NULL;
	f->elem_type = kinds[k].type;
	width = kc_subtype_width(f->elem_type);
	p += n;
	if (*p == '[') {
		p++;
		if (*p == '*') {
			count = 65535;
			p++;
		} else {
			count = (uint32_t)strtoul(p, (char **)&p, 10);
		}
		if (*p++ != ']' || count < 1 || count > 65535)
			return NULL;
		f->flags |= KCDATA_SUBTYPE_FLAG_ARRAY;
	}
	p = skip_spaces(p);
	n = strcspn(p, "@; ");
	if (n == 0 || n >= KC_NAME_MAX)
		return NULL;
	memcpy(f->name, p, n);
	p = skip_spaces(p + n);
	if (*p == '@') {
		*offset = (uint32_t)strtoul(p + 1, (char **)&p, 10);
		p = skip_spaces(p);
	}
	if (*offset > 0xffff)
		return NULL;
	f->offset = (uint16_t)*offset;
	f->size = (f->flags & KCDATA_SUBTYPE_FLAG_ARRAY) ? count << 16 | width : width;
	*offset += count * width;
	return p;
}

static uint32_t count_fields(const char *layout)
{
	uint32_t n = 0;

	if (!*skip_spaces(layout))
		return 0;
	for (n = 1; *layout; layout++)
		n += *layout == ';';
	return n;
}

bool kc_builtin_type(uint32_t id, struct kc_type *t)
{
	const struct kc_spec *s = find_spec(id);
	const char *p;
	uint32_t offset = 0;

	memset(t, 0, sizeof(*t));
	if (!s)
		return false;
	p = spec_layout(s);
	t->id = id;
	t->nfields = count_fields(p);
	snprintf(t->name, sizeof(t->name), "%s", s->name);
	if (t->nfields) {
		t->fields = calloc(t->nfields, sizeof(*t->fields));
		if (!t->fields)
			return true;
	}
	for (uint32_t i = 0; i < t->nfields; i++) {
		p = parse_field(p, &t->fields[i], &offset);
		if (!p || (*p != ';' && *p != 0)) {
			/* A malformed table line: treat the type as unknown. */
			free(t->fields);
			memset(t, 0, sizeof(*t));
			return false;
		}
		if (*p == ';')
			p++;
		if (t->fields[i].flags & KCDATA_SUBTYPE_FLAG_MERGE)
			t->merge = true;
	}
	if (t->nfields == 1 && !(t->fields[0].flags & KCDATA_SUBTYPE_FLAG_STRUCT)) {
		/* libkdd: a one-field type is a basic type named after its field. */
		t->kind = KC_BASIC;
		t->merge = true;
		snprintf(t->name, sizeof(t->name), "%s", t->fields[0].name);
	} else {
		t->kind = KC_STRUCT;
		t->desc_key = id >= KCDATA_TYPE_STRING_DESC && id <= KCDATA_TYPE_BINDATA_DESC;
		t->merge = t->merge || t->desc_key;
		t->typedef_fields = id == KCDATA_TYPE_TYPEDEFINITION;
	}
	return true;
}

const char *kc_builtin_name(uint32_t id)
{
	const struct kc_spec *s = find_spec(id);

	return s ? s->name : NULL;
}

const char *kcdata_type_name(uint32_t id)
{
	return kc_builtin_name(id);
}

/* For the unit tests: the table is sorted and every line parses. */
int kc_builtin_selftest(void);
int kc_builtin_selftest(void)
{
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct kc_type t;

		if (i && specs[i - 1].id >= specs[i].id)
			return -1;
		if (!kc_builtin_type(specs[i].id, &t))
			return -1;
		if (t.nfields && !t.fields)
			return -1;
		free(t.fields);
	}
	return 0;
}
