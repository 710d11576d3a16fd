// SPDX-License-Identifier: MIT
/*
 * `ktrace export --format perfetto`: the event stream as a Perfetto trace (a protobuf
 * `Trace`: a sequence of TracePacket), written with our own wire-format helpers
 * (sinks/export/export_protobuf.h) from the field numbers of Perfetto's protos.
 *
 * The trace is:
 *   1. a SystemInfo packet with the traced system's uname (trace_processor decodes
 *      sched_switch prev_state by kernel release), when an input names its system;
 *   2. ProcessTree packets, stamped with the first record's time: the threads the
 *      inputs name when they open (saved cmdlines and tgids, Darwin thread maps), and
 *      a process per known thread group (named after its main thread);
 *   3. FtraceEventBundle packets, one CPU each, with the records in time order: each
 *      CPU fills a bundle of up to BUNDLE_BYTES, and every bundle goes out when the
 *      buffered total passes BUFFERED_BYTES, so memory stays bounded however many CPUs
 *      there are. A lost-events mark ends its CPU's bundle; the next one has
 *      lost_events set. The description of a generic event type goes out in a bundle
 *      of its own before any bundle holding such an event. Records without a CPU
 *      (KOFF) go to CPU 0's bundles;
 *   4. at the end, a ProcessTree of the threads first named by the records, then
 *      FtraceStats packets (START_OF_TRACE with zeros, END_OF_TRACE with the number of
 *      lost events per CPU as overrun: trace_processor reports the difference).
 * Every packet has trusted_packet_sequence_id 1. Timestamps are the stream's, in ns;
 * ftrace_clock is left unset. Several inputs stay apart: input i >= 1 is machine i
 * (machine_id on each of its packets) with bundles, SystemInfo, process tree and
 * FtraceStats of its own; a thread of unknown group is its own process.
 */
#include <ktrace/view.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/grow.h"
#include "common/opts.h"
#include "common/outbuf.h"
#include "common/outfile.h"
#include "engine/engine.h"
#include "sinks/export/export_order.h"
#include "sinks/export/export_perfetto_events.h"
#include "sinks/export/export_protobuf.h"

#define BUNDLE_BYTES (64 * 1024)
#define BUFFERED_BYTES (8 * 1024 * 1024)
#define MAX_CPUS 1024                 /* trace_processor refuses bundles of CPUs beyond */
#define TREE_ENTRIES 2048             /* threads or processes per ProcessTree packet */
#define PROGRESS_EVERY 65536
#define BLOCK_RECORDS 8192            /* with threads: records of a block */

/* TracePacket fields */
enum {
	TP_FTRACE_EVENTS = 1,
	TP_PROCESS_TREE = 2,
	TP_TIMESTAMP = 8,
	TP_SEQUENCE_ID = 10,
	TP_FTRACE_STATS = 34,
	TP_SYSTEM_INFO = 45,
	TP_MACHINE_ID = 98,
	TRACE_PACKET = 1,             /* Trace.packet */
	SEQUENCE_ID = 1,
};

/* ProcessTree, SystemInfo, FtraceStats */
enum {
	PT_PROCESSES = 1, PT_THREADS = 2,
	PR_PID = 1, PR_PPID = 2, PR_CMDLINE = 3, PR_CMDLINE_IS_COMM = 9,
	TH_TID = 1, TH_NAME = 2, TH_TGID = 3,
	SI_UTSNAME = 1, UT_SYSNAME = 1, UT_VERSION = 2, UT_RELEASE = 3, UT_MACHINE = 4,
	FS_PHASE = 1, FS_CPU_STATS = 2, FS_START = 1, FS_END = 2,
	CS_CPU = 1, CS_OVERRUN = 3,
};

/* thread_table flags */
enum { T_LEARNT = 1 };

/* What the records tell of a thread beyond its name and tgid (0: nothing; else id + 1):
 * the thread whose task_newtask made it with CLONE_THREAD (its group is that one's),
 * or, made without, the parent process. */
struct pf_thr {
	int64_t group_of;
	int64_t ppid;
};

#define CLONE_THREAD_FLAG 0x00010000   /* the kernel's CLONE_THREAD */
#define CLONE_PARENT_FLAG 0x00008000   /* the kernel's CLONE_PARENT */

struct pf_cpu {
	struct kt_pb_buf b;           /* the bundle being filled (its fields) */
	uint32_t source;              /* the input whose CPU it is */
	uint64_t lost;                /* events lost on this CPU */
	bool lost_next;               /* the next bundle follows a loss */
	bool seen;
};

/* An input's CPUs: each input of several is a machine of its own (machine_id). */
struct pf_input {
	struct pf_cpu **cpus;
	size_t ncpus;
};

struct pf {
	struct ktrace_stream *s;
	struct ktrace_out *out;
	const struct ktrace_view_export_opts *o;
	struct pf_events *ev;
	struct pf_input *in;          /* per input: its CPUs (an input is a machine) */
	size_t nin;
	size_t buffered;
	struct kt_pb_buf pkt, desc;
	struct kt_threads threads;
	uint64_t last_ts;
	size_t learnt;
	int64_t named_tid;            /* a thread named at open (-2: none yet) */
	uint32_t named_source;        /* its input */
	bool newtask_seen;            /* task:task_newtask met (its id: newtask_id) */
	uint32_t newtask_id;
	/* threads: this one is tid of nthr, and writes into blk (else to out) */
	unsigned tid, nthr;
	struct kt_pb_buf blk;
	bool to_blk;
	struct kt_turns *turns;
	struct kt_turn_queue queue;
	int ret;                      /* a helper's end */
	struct ktrace_error err;      /* a helper's error */
	/* passing over other threads' blocks (kt_stream_skip): the input of the records,
	 * and the threads whose names are known here for good (tid + 1 at tid modulo
	 * DONE_TIDS) */
	uint32_t skip_source;
	int64_t *done_tid;
};

#define DONE_TIDS 4096

/* ---- packets ---- */

/* Bytes of the trace: to the output, or to this thread's block. */
static void emit(struct pf *pf, const void *p, size_t n)
{
	if (pf->to_blk)
		kt_pb_raw(&pf->blk, p, n);
	else
		kt_out_write(pf->out, p, n);
}

static void put_header(struct pf *pf, size_t body)
{
	uint8_t h[16], *p = h;

	*p++ = (uint8_t)kt_pb_tag(TRACE_PACKET, KT_PB_LEN);
	p = kt_pb_put_varint(p, body);
	emit(pf, h, (size_t)(p - h));
}

/* pf->pkt (a TracePacket's fields) as one packet of input source's machine, with the
 * sequence id. */
static void send_packet(struct pf *pf, uint32_t source)
{
	kt_pb_varint(&pf->pkt, TP_SEQUENCE_ID, SEQUENCE_ID);
	if (source)
		kt_pb_varint(&pf->pkt, TP_MACHINE_ID, source);
	put_header(pf, pf->pkt.len);
	emit(pf, pf->pkt.p, pf->pkt.len);
	pf->pkt.len = 0;
}

/* A bundle's fields as an ftrace_events packet of input source's machine. */
static void send_bundle(struct pf *pf, const struct kt_pb_buf *bundle, uint32_t source)
{
	uint8_t h[16], *p = h, t[16], *q = t;

	*p++ = (uint8_t)kt_pb_tag(TP_FTRACE_EVENTS, KT_PB_LEN);
	p = kt_pb_put_varint(p, bundle->len);
	*q++ = (uint8_t)kt_pb_tag(TP_SEQUENCE_ID, KT_PB_VARINT);
	*q++ = SEQUENCE_ID;
	if (source) {
		q = kt_pb_put_varint(q, kt_pb_tag(TP_MACHINE_ID, KT_PB_VARINT));
		q = kt_pb_put_varint(q, source);
	}
	put_header(pf, (size_t)(p - h) + bundle->len + (size_t)(q - t));
	emit(pf, h, (size_t)(p - h));
	emit(pf, bundle->p, bundle->len);
	emit(pf, t, (size_t)(q - t));
}

static void flush_cpu(struct pf *pf, struct pf_cpu *c)
{
	if (!c->b.len)
		return;
	send_bundle(pf, &c->b, c->source);
	pf->buffered -= c->b.len;
	c->b.len = 0;
}

static void flush_all(struct pf *pf)
{
	for (size_t k = 0; k < pf->nin; k++)
		for (size_t i = 0; i < pf->in[k].ncpus; i++)
			if (pf->in[k].cpus[i])
				flush_cpu(pf, pf->in[k].cpus[i]);
}

/* CPU cpu of input source (source < pf->nin). */
static struct pf_cpu *get_cpu(struct pf *pf, uint32_t source, uint32_t cpu, int *err)
{
	struct pf_input *in = &pf->in[source];

	if (cpu >= MAX_CPUS) {
		*err = -ERANGE;
		return NULL;
	}
	if (cpu >= in->ncpus) {
		size_t n = in->ncpus ? in->ncpus : 8;
		struct pf_cpu **v;

		while (n <= cpu)
			n *= 2;
		v = kt_realloc_array(in->cpus, n, sizeof(*v));
		if (!v) {
			*err = -ENOMEM;
			return NULL;
		}
		memset(v + in->ncpus, 0, (n - in->ncpus) * sizeof(*v));
		in->cpus = v;
		in->ncpus = n;
	}
	if (!in->cpus[cpu]) {
		in->cpus[cpu] = calloc(1, sizeof(struct pf_cpu));
		if (!in->cpus[cpu]) {
			*err = -ENOMEM;
			return NULL;
		}
		in->cpus[cpu]->source = source;
	}
	in->cpus[cpu]->seen = true;
	return in->cpus[cpu];
}

/* ---- metadata ---- */

/* Each input's system (its machine's). */
static void system_info(struct pf *pf)
{
	for (size_t i = 0; i < ktrace_stream_source_count(pf->s); i++) {
		const struct ktrace_stream_source *src = ktrace_stream_source(pf->s, i);
		size_t si, ut;

		if (!src || !*src->sysname)
			continue;
		si = kt_pb_open(&pf->pkt, TP_SYSTEM_INFO);
		ut = kt_pb_open(&pf->pkt, SI_UTSNAME);
		kt_pb_string(&pf->pkt, UT_SYSNAME, src->sysname);
		if (*src->version)
			kt_pb_string(&pf->pkt, UT_VERSION, src->version);
		if (*src->release)
			kt_pb_string(&pf->pkt, UT_RELEASE, src->release);
		if (*src->machine)
			kt_pb_string(&pf->pkt, UT_MACHINE, src->machine);
		kt_pb_close(&pf->pkt, ut);
		kt_pb_close(&pf->pkt, si);
		send_packet(pf, (uint32_t)i);
	}
}

/* A trace-cmd comm that names no thread ("<...>" unknown, "<idle>" for pid 0). */
static bool no_name(const char *comm)
{
	return !*comm || (*comm == '<' && (!strcmp(comm, "<...>") || !strcmp(comm, "<idle>")));
}

static void tree_begin(struct pf *pf, uint64_t ts, size_t *tree)
{
	kt_pb_varint(&pf->pkt, TP_TIMESTAMP, ts);
	*tree = kt_pb_open(&pf->pkt, TP_PROCESS_TREE);
}

static void tree_end(struct pf *pf, size_t tree, uint32_t source)
{
	kt_pb_close(&pf->pkt, tree);
	send_packet(pf, source);
}

static struct pf_thr *thr_of(const struct kt_threads *t, const struct kt_thread *th)
{
	return kt_threads_ext(t, kt_threads_index(t, th));
}

/* The thread group of th: its known tgid; else that of the thread whose task_newtask
 * (CLONE_THREAD) made it; else its own (trace_processor puts a thread without tgid in
 * process 0: a thread of unknown group is its own process). */
static int64_t tgid_of(const struct pf *pf, const struct kt_thread *th)
{
	for (int depth = 0; depth < 64; depth++) {
		const struct pf_thr *x = thr_of(&pf->threads, th);
		const struct kt_thread *c;

		if (th->pid >= 0 || !x->group_of)
			return th->pid >= 0 ? th->pid : th->id;
		c = kt_threads_find(&pf->threads, th->scope, x->group_of - 1);
		if (!c || c == th)
			return x->group_of - 1;
		th = c;
	}
	return th->id;
}

/* Whether th goes in the tree: a thread known by a name, its group or a record of its
 * own (one only named in another's record as <...>, with no group, does not). */
static bool in_tree(const struct pf *pf, const struct kt_thread *th)
{
	return !no_name(kt_thread_name(th)) || th->pid >= 0 ||
	       thr_of(&pf->threads, th)->group_of || (th->flags & T_LEARNT);
}

/* One entry more in the tree being written: a new packet every TREE_ENTRIES. */
static void tree_entry(struct pf *pf, uint64_t ts, size_t *tree, size_t *n)
{
	if (!*n)
		tree_begin(pf, ts, tree);
	++*n;
}

static void tree_entry_end(struct pf *pf, size_t tree, size_t *n, uint32_t source)
{
	if (*n == TREE_ENTRIES) {
		tree_end(pf, tree, source);
		*n = 0;
	}
}

/* ProcessTree packets of input source's threads whose flags & mask == want: a process
 * per thread group (named after its main thread, else one of its threads; its parent
 * when a task_newtask told it), then the threads, in the exports' order
 * (export_order.h). */
static int source_tree(struct pf *pf, const uint32_t *order, uint32_t source, uint64_t ts,
		       uint32_t mask, uint32_t want)
{
	struct kt_threads procs;
	uint32_t *porder = NULL;
	size_t tree = 0, n = 0;

	kt_threads_init(&procs, 0, KTRACE_STREAM_COMM_MAX - 1, sizeof(int64_t));
	for (size_t i = 0; i < pf->threads.n; i++) {
		const struct kt_thread *th = &pf->threads.v[order[i]];
		int64_t g = tgid_of(pf, th);
		const char *comm;
		struct kt_thread *p;

		if ((th->flags & mask) != want || th->scope != source || g < 0 || !in_tree(pf, th))
			continue;
		p = kt_threads_add(&procs, 0, g);
		if (!p)
			goto oom;
		comm = kt_thread_name(th);
		if (!no_name(comm) && (!p->name || th->id == g) &&
		    kt_thread_set_name(&procs, p, comm, strlen(comm)) < 0)
			goto oom;
		if (th->id == g && thr_of(&pf->threads, th)->ppid)
			*(int64_t *)kt_threads_ext(&procs, kt_threads_index(&procs, p)) =
				thr_of(&pf->threads, th)->ppid;
	}
	if (kt_export_thread_order(&procs, &porder))
		goto oom;
	for (size_t i = 0; i < procs.n; i++) {
		const struct kt_thread *p = &procs.v[porder[i]];
		int64_t ppid = *(const int64_t *)kt_threads_ext(&procs, porder[i]);
		size_t m;

		/* (a group none of whose threads has a name is a process all the same: its
		 * threads in the tree name it as theirs) */
		tree_entry(pf, ts, &tree, &n);
		m = kt_pb_open(&pf->pkt, PT_PROCESSES);
		kt_pb_varint(&pf->pkt, PR_PID, (uint64_t)p->id);
		if (ppid)
			kt_pb_varint(&pf->pkt, PR_PPID, (uint64_t)(ppid - 1));
		if (p->name) {
			kt_pb_string(&pf->pkt, PR_CMDLINE, p->name);
			kt_pb_varint(&pf->pkt, PR_CMDLINE_IS_COMM, 1);
		}
		kt_pb_close(&pf->pkt, m);
		tree_entry_end(pf, tree, &n, source);
	}
	free(porder);
	kt_threads_free(&procs);
	for (size_t i = 0; i < pf->threads.n; i++) {
		const struct kt_thread *th = &pf->threads.v[order[i]];
		size_t m;

		if ((th->flags & mask) != want || th->scope != source || th->id < 0 || !in_tree(pf, th))
			continue;
		tree_entry(pf, ts, &tree, &n);
		m = kt_pb_open(&pf->pkt, PT_THREADS);
		kt_pb_varint(&pf->pkt, TH_TID, (uint64_t)th->id);
		if (!no_name(kt_thread_name(th)))
			kt_pb_string(&pf->pkt, TH_NAME, th->name);
		kt_pb_varint(&pf->pkt, TH_TGID, (uint64_t)tgid_of(pf, th));
		kt_pb_close(&pf->pkt, m);
		tree_entry_end(pf, tree, &n, source);
	}
	if (n)
		tree_end(pf, tree, source);
	return pf->pkt.oom ? -ENOMEM : 0;
oom:
	kt_threads_free(&procs);
	return -ENOMEM;
}

/* The ProcessTree packets of every input (each its machine's). */
static int process_tree(struct pf *pf, uint64_t ts, uint32_t mask, uint32_t want)
{
	uint32_t *order;
	int ret = 0;

	if (kt_export_thread_order(&pf->threads, &order))
		return -ENOMEM;
	for (size_t k = 0; !ret && k < pf->nin; k++)
		ret = source_tree(pf, order, (uint32_t)k, ts, mask, want);
	free(order);
	return ret;
}

/* FtraceStats of each input's CPUs (its machine's). */
static void ftrace_stats(struct pf *pf, int phase)
{
	for (size_t k = 0; k < pf->nin; k++) {
		const struct pf_input *in = &pf->in[k];
		size_t st;

		if (k && !in->ncpus)
			continue;
		st = kt_pb_open(&pf->pkt, TP_FTRACE_STATS);
		kt_pb_varint(&pf->pkt, FS_PHASE, (uint64_t)phase);
		for (size_t i = 0; i < in->ncpus; i++) {
			size_t c;

			if (!in->cpus[i] || !in->cpus[i]->seen)
				continue;
			c = kt_pb_open(&pf->pkt, FS_CPU_STATS);
			kt_pb_varint(&pf->pkt, CS_CPU, i);
			kt_pb_varint(&pf->pkt, CS_OVERRUN, phase == FS_END ? in->cpus[i]->lost : 0);
			kt_pb_close(&pf->pkt, c);
		}
		kt_pb_close(&pf->pkt, st);
		send_packet(pf, (uint32_t)k);
	}
}

/* ---- records ---- */

/* task:task_newtask (r): the new thread (field pid, named comm) joins the group of the
 * thread that made it (r->tid) with CLONE_THREAD, else it leads a process of its own
 * whose parent is that thread's process (CLONE_PARENT: that process's parent, unknown
 * here). Only for a thread the inputs did not name when they opened (the end's
 * ProcessTree; those named at open went out first). */
static int learn_newtask(struct pf *pf, const struct ktrace_stream_record *r)
{
	struct ktrace_event_value pid, flags, comm;
	const struct kt_thread *maker;
	struct kt_thread *th;
	struct pf_thr *x;
	int64_t maker_tgid;
	size_t len;

	if (ktrace_stream_field_by_name(pf->s, "pid", &pid) ||
	    ktrace_stream_field_by_name(pf->s, "clone_flags", &flags) ||
	    (pid.type != KTRACE_EVENT_SIGNED && pid.type != KTRACE_EVENT_UNSIGNED) ||
	    (pid.type == KTRACE_EVENT_UNSIGNED && pid.u > INT32_MAX) ||
	    (pid.type == KTRACE_EVENT_UNSIGNED ? (pid.i = (int64_t)pid.u) : pid.i) <= 0 ||
	    pid.i > INT32_MAX ||
	    (flags.type != KTRACE_EVENT_UNSIGNED && flags.type != KTRACE_EVENT_SIGNED))
		return 0;
	th = kt_threads_find(&pf->threads, r->source, pid.i);
	if (th && !(th->flags & T_LEARNT))
		return 0;
	if (!th && !(th = kt_threads_add(&pf->threads, r->source, pid.i)))
		return -ENOMEM;
	if (!(th->flags & T_LEARNT)) {
		th->flags |= T_LEARNT;
		pf->learnt++;
	}
	maker = r->tid > 0 ? kt_threads_find(&pf->threads, r->source, r->tid) : NULL;
	maker_tgid = r->pid >= 0 ? r->pid : maker ? maker->pid : -1;
	x = thr_of(&pf->threads, th);
	if (flags.u & CLONE_THREAD_FLAG) {
		if (maker_tgid >= 0)
			th->pid = maker_tgid;
		else if (r->tid > 0)
			x->group_of = r->tid + 1;
	} else {
		th->pid = pid.i;
		if (!(flags.u & CLONE_PARENT_FLAG) && r->tid > 0)
			x->ppid = (maker_tgid >= 0 ? maker_tgid :
				   maker ? tgid_of(pf, maker) : r->tid) + 1;
	}
	if (!ktrace_stream_field_by_name(pf->s, "comm", &comm) && comm.data &&
	    (comm.type == KTRACE_EVENT_STRING ||
	     (comm.type == KTRACE_EVENT_ARRAY && comm.elem_size == 1))) {
		const char *c = comm.data;

		for (len = 0; len < comm.len && c[len]; len++)
			;
		if (len && !th->name && kt_thread_set_name(&pf->threads, th, c, len) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Remembers the names the records teach, for threads the inputs did not name when
 * they opened (the end's ProcessTree), and the thread groups task_newtask tells. */
static int learn(struct pf *pf, const struct ktrace_stream_record *r)
{
	struct kt_thread *th;

	if (r->name[0] == 't' && r->kind == KTRACE_STREAM_EVENT && !strcmp(r->name, "task_newtask") &&
	    !strcmp(r->system, "task")) {
		int err;

		if (!r->source) {
			pf->newtask_seen = true;
			pf->newtask_id = r->event_id;
		}
		if ((err = learn_newtask(pf, r)))
			return err;
	}
	if (r->tid == pf->named_tid && r->source == pf->named_source)
		return 0;   /* the last record's thread, named at open */
	if (r->tid < 0)
		return 0;
	if (no_name(r->comm)) {
		/* a thread of no known name is a thread all the same (its own process when
		 * nothing tells its group): in the end's tree by its tid (the idle task
		 * excepted) */
		if (!r->tid || kt_threads_find(&pf->threads, r->source, r->tid))
			return 0;
		if (!(th = kt_threads_add(&pf->threads, r->source, r->tid)))
			return -ENOMEM;
		th->flags |= T_LEARNT;
		pf->learnt++;
		if (r->pid >= 0)
			th->pid = r->pid;
		return 0;
	}
	/* a trace.dat's name of a thread never changes once known (the first comm of a pid
	 * stays): the thread's next records may be passed over (pf_accept) */
	if (pf->done_tid)
		pf->done_tid[r->tid % DONE_TIDS] = r->tid + 1;
	th = kt_threads_find(&pf->threads, r->source, r->tid);
	if (th && !(th->flags & T_LEARNT) && !no_name(kt_thread_name(th))) {
		pf->named_tid = r->tid;
		pf->named_source = r->source;
		return 0;   /* named at open */
	}
	if (!th && !(th = kt_threads_add(&pf->threads, r->source, r->tid)))
		return -ENOMEM;
	if (!(th->flags & T_LEARNT)) {
		th->flags |= T_LEARNT;
		pf->learnt++;
	}
	if (r->pid >= 0)
		th->pid = r->pid;
	return kt_thread_set_name(&pf->threads, th, r->comm, strlen(r->comm)) < 0 ? -ENOMEM : 0;
}

/* The record's CPU (*c), and a lost-events mark counted there (it ends the CPU's bundle
 * when this thread writes it): 1 for a mark, 0 for an event, or a negative code. */
static int record_cpu(struct pf *pf, const struct ktrace_stream_record *r, bool writes,
		      struct pf_cpu **c)
{
	int err = 0;

	*c = get_cpu(pf, r->source < pf->nin ? r->source : 0, r->cpu < 0 ? 0 : (uint32_t)r->cpu,
		     &err);
	if (!*c)
		return err;
	if (r->kind != KTRACE_STREAM_LOST)
		return 0;
	(*c)->lost += r->lost;
	if (writes)
		flush_cpu(pf, *c);
	(*c)->lost_next = true;
	return 1;
}

static int put_record(struct pf *pf, const struct ktrace_stream_record *r)
{
	struct pf_cpu *c;
	size_t before;
	int err = record_cpu(pf, r, true, &c);

	if (err)
		return err < 0 ? err : 0;
	before = c->b.len;
	if (!c->b.len) {
		kt_pb_varint(&c->b, PF_BUNDLE_CPU, r->cpu < 0 ? 0 : (uint32_t)r->cpu);
		if (c->lost_next)
			kt_pb_varint(&c->b, PF_BUNDLE_LOST_EVENTS, 1);
		c->lost_next = false;
	}
	err = pf_event_encode(pf->ev, pf->s, r, &c->b, &pf->desc);
	if (err)
		return err;
	if (pf->desc.len) {
		/* a new generic type: its description goes out before the bundle */
		struct kt_pb_buf d = { 0 };

		kt_pb_varint(&d, PF_BUNDLE_CPU, r->cpu < 0 ? 0 : (uint32_t)r->cpu);
		kt_pb_raw(&d, pf->desc.p, pf->desc.len);
		if (d.oom) {
			kt_pb_free(&d);
			return -ENOMEM;
		}
		send_bundle(pf, &d, c->source);
		kt_pb_free(&d);
		pf->desc.len = 0;
	}
	pf->buffered += c->b.len - before;
	if (c->b.len >= BUNDLE_BYTES)
		flush_cpu(pf, c);
	if (pf->buffered >= BUFFERED_BYTES)
		flush_all(pf);
	pf->last_ts = r->ts;
	return learn(pf, r);
}

/* Another thread's record: only what the records after it depend on (the types met,
 * the names learnt, the losses per CPU). */
static int skip_record(struct pf *pf, const struct ktrace_stream_record *r)
{
	struct pf_cpu *c;
	int err = record_cpu(pf, r, false, &c);

	if (err)
		return err < 0 ? err : 0;
	/* the thread writing this record starts its bundle with the loss */
	c->lost_next = false;
	err = pf_event_type(pf->ev, pf->s, r, &pf->desc);
	pf->desc.len = 0;
	if (err)
		return err;
	pf->last_ts = r->ts;
	return learn(pf, r);
}

static int pf_init(struct pf *pf, struct ktrace_stream *s, const struct ktrace_view_export_opts *o,
		   struct ktrace_out *out)
{
	size_t nin = ktrace_stream_source_count(s);

	*pf = (struct pf){ .s = s, .out = out, .o = o, .named_tid = -2 };
	pf->ev = pf_events_new(o->flags & KTRACE_VIEW_EXPORT_LEGACY_GENERIC);
	pf->done_tid = calloc(DONE_TIDS, sizeof(*pf->done_tid));
	pf->nin = nin ? nin : 1;
	pf->in = calloc(pf->nin, sizeof(*pf->in));
	/* each input's threads apart (its machine's) */
	kt_threads_init(&pf->threads, KT_THREADS_NEGATIVE | KT_THREADS_PER_SOURCE,
			KTRACE_STREAM_COMM_MAX - 1, sizeof(struct pf_thr));
	return pf->ev && pf->done_tid && pf->in ? kt_threads_load(&pf->threads, s) : -ENOMEM;
}

static void pf_free(struct pf *pf)
{
	for (size_t k = 0; pf->in && k < pf->nin; k++) {
		for (size_t i = 0; i < pf->in[k].ncpus; i++)
			if (pf->in[k].cpus[i]) {
				kt_pb_free(&pf->in[k].cpus[i]->b);
				free(pf->in[k].cpus[i]);
			}
		free(pf->in[k].cpus);
	}
	free(pf->in);
	kt_pb_free(&pf->pkt);
	kt_pb_free(&pf->desc);
	kt_pb_free(&pf->blk);
	kt_turn_queue_free(&pf->queue);
	kt_threads_free(&pf->threads);
	pf_events_free(pf->ev);
	free(pf->done_tid);
}

/* The end of this thread's block: its bundles into it, and it in the queue. */
static int end_block(struct pf *pf, uint64_t block)
{
	void *buf;
	bool ok;

	flush_all(pf);
	if (pf->blk.oom || pf->pkt.oom)
		return -ENOMEM;
	buf = pf->blk.p;
	ok = kt_turns_queue(pf->turns, &pf->queue, block, &buf, &pf->blk.len, &pf->blk.cap);
	pf->blk.p = buf;
	return ok ? 0 : -ECANCELED;
}

/* kt_stream_skip's test: a record of another thread's block that this thread needs
 * nothing from (skip_record would change nothing but the last time): its type made here
 * already, its thread named for good, its CPU known. */
static bool pf_accept(void *arg, uint32_t event_id, int64_t tid, int32_t cpu, uint64_t ts)
{
	struct pf *pf = arg;

	const struct pf_input *in = &pf->in[pf->skip_source < pf->nin ? pf->skip_source : 0];

	/* (only a stream of one input skips) */
	if (!pf_event_known(pf->ev, pf->skip_source, event_id) ||
	    (pf->newtask_seen && event_id == pf->newtask_id) ||
	    (tid >= 0 && tid != pf->named_tid && pf->done_tid[tid % DONE_TIDS] != tid + 1) ||
	    (cpu >= 0 && ((size_t)cpu >= in->ncpus || !in->cpus[cpu])))
		return false;
	pf->last_ts = ts;
	return true;
}

/* A thread of a threaded export: every record read, each block of them written by the
 * thread that gets there first (kt_turns_claim), the blocks in turn. The first thread
 * begins with the trace's head. */
static int walk(struct pf *pf, struct ktrace_error *err)
{
	const struct ktrace_stream_record *r = NULL;
	uint64_t n = 0, cur = pf->tid ? UINT64_MAX : 0, decided = UINT64_MAX;
	bool own = false;
	int ret = 0, sret;
	const struct kt_stream_skip how = { pf_accept, pf };

	pf->to_blk = true;
	sret = ktrace_stream_next(pf->s, &r, err);
	if (!pf->tid) {
		system_info(pf);
		ret = process_tree(pf, sret > 0 ? r->ts : 0, 0, 0);
	}
	while (!ret && sret > 0) {
		uint64_t b = n / BLOCK_RECORDS, skipped = 0;

		if (b != decided) {
			decided = b;
			own = kt_turns_claim(pf->turns, b, pf->tid, pf->nthr);
		}
		if (own) {
			if (b != cur && cur != UINT64_MAX)
				ret = end_block(pf, cur);
			cur = b;
			if (!ret)
				ret = put_record(pf, r);
		} else {
			ret = skip_record(pf, r);
			if (!ret && (n + 1) % BLOCK_RECORDS) {
				/* the rest of the other thread's block, as far as it needs
				 * nothing from this thread */
				uint64_t k;

				pf->skip_source = r->source;
				sret = kt_stream_skip(pf->s, BLOCK_RECORDS - 1 - n % BLOCK_RECORDS,
						      &how, &k, err);
				skipped = k;
			}
		}
		n += 1 + skipped;
		if (!pf->tid && pf->o->progress &&
		    n / PROGRESS_EVERY != (n - 1 - skipped) / PROGRESS_EVERY)
			pf->o->progress(pf->o->progress_ctx, n / PROGRESS_EVERY * PROGRESS_EVERY);
		if (sret < 0)
			break;
		if (!ret)
			sret = ktrace_stream_next(pf->s, &r, err);
	}
	if (ret == -ENOMEM || ret == -ECANCELED) {
		kt_turns_give_up(pf->turns);
		return ret;
	}
	if (ret == -ERANGE)
		kt_stream_record_error(pf->s, r, err, ret, "CPU %d: Perfetto takes CPUs 0 to %d",
				       r->cpu, MAX_CPUS - 1);
	/* the last block (cut short by the end or by damage), then every block in turn */
	if (cur != UINT64_MAX && end_block(pf, cur))
		return -ECANCELED;
	if (!kt_turns_write(pf->turns, &pf->queue, true))
		return -ECANCELED;
	if (ret)
		return ret;
	return sret < 0 ? sret : 0;
}

struct helper {
	struct pf pf;
	const struct ktrace_view_export_opts *o;
	pthread_t th;
};

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	struct ktrace_stream *s = NULL;
	int ret = h->o->open_stream(h->o->open_ctx, &s);

	if (!ret) {
		unsigned tid = h->pf.tid, nthr = h->pf.nthr;
		struct kt_turns *turns = h->pf.turns;

		ret = pf_init(&h->pf, s, h->o, NULL);
		h->pf.tid = tid;
		h->pf.nthr = nthr;
		h->pf.turns = turns;
		if (!ret) {
			/* it gives up itself when it cannot write its blocks (damage ends its
			 * blocks as it ends the others') */
			h->pf.ret = walk(&h->pf, &h->pf.err);
			goto out;
		}
	}
	/* a thread that cannot start (its stream, its memory) has taken no block: the
	 * others make them all */
	h->pf.ret = 0;
out:
	pf_free(&h->pf);
	if (s)
		ktrace_stream_close(s);
	return NULL;
}

/* A block straight to the output's descriptor (what the buffer holds first): no copy. */
static int write_out(void *ctx, const void *p, size_t n)
{
	struct ktrace_out *o = ctx;
	int ret;

	if (o->error)
		return o->error;
	if ((ret = kt_out_flush(o)) || (ret = kt_write_all(o->fd, p, n)))
		o->error = ret;
	return ret;
}

/* The end of the trace, after every block: the threads the records named, the losses. */
static int finish(struct pf *pf)
{
	pf->to_blk = false;
	flush_all(pf);
	if (pf->learnt && process_tree(pf, pf->last_ts, T_LEARNT, T_LEARNT))
		return -ENOMEM;
	ftrace_stats(pf, FS_START);
	ftrace_stats(pf, FS_END);
	return pf->pkt.oom ? -ENOMEM : 0;
}

static int perfetto_threads(struct ktrace_stream *s, const struct ktrace_view_export_opts *o,
			    struct ktrace_out *out, struct ktrace_error *err)
{
	unsigned nthr = o->threads > 8 ? 8 : o->threads, started = 0;
	struct helper *h = calloc(nthr, sizeof(*h));
	struct kt_turns turns;
	struct pf pf;
	int ret;

	if (!h)
		return kt_error_oom(err);
	kt_turns_init(&turns, write_out, out);
	ret = pf_init(&pf, s, o, out);
	pf.nthr = nthr;
	pf.turns = &turns;
	for (unsigned t = 1; !ret && t < nthr; t++) {
		h[t].o = o;
		h[t].pf.tid = t;
		h[t].pf.nthr = nthr;
		h[t].pf.turns = &turns;
		if (pthread_create(&h[t].th, NULL, helper_main, &h[t]))
			break;
		started++;
	}
	/* a thread that cannot be created takes no block: the others make them all */
	if (!ret)
		ret = walk(&pf, err);
	for (unsigned t = 1; t <= started; t++) {
		pthread_join(h[t].th, NULL);
		/* the same records, the same damage: this thread's end is the one; a helper's
		 * own failure (memory, opening its stream) counts when it has none */
		if ((!ret || ret == -ECANCELED) && h[t].pf.ret && h[t].pf.ret != -ECANCELED) {
			ret = h[t].pf.ret;
			*err = h[t].pf.err;
			if (!err->code)
				ktrace_error_set(err, ret, "a thread stopped: %s", strerror(-ret));
		}
	}
	if (ret == -ECANCELED)
		ret = kt_error_oom(err);
	/* a record the trace cannot hold ends it as damage does; out of memory: no end */
	if (ret != -ENOMEM && finish(&pf))
		ret = -ENOMEM;
	if (ret == -ENOMEM)
		ktrace_error_set(err, ret, "out of memory");
	pf_free(&pf);
	kt_turns_fini(&turns);
	free(h);
	return ret;
}

int ktrace_view_perfetto(struct ktrace_stream *s, const struct ktrace_view_export_opts *o,
			 struct ktrace_out *out, struct ktrace_error *err)
{
	struct ktrace_view_export_opts opts;
	struct pf pf = { .named_tid = -2 };
	const struct ktrace_stream_record *r = NULL;
	uint64_t n = 0;
	int ret, sret;

	ret = KT_OPTS_COPY(&opts, o, "ktrace_view_export_opts", err);
	if (ret)
		return ret;
	if (opts.threads >= 2 && opts.open_stream)
		return perfetto_threads(s, &opts, out, err);
	ret = pf_init(&pf, s, &opts, out);
	if (ret)
		goto out;
	/* the first record's time stamps the process tree */
	sret = ktrace_stream_next(s, &r, err);
	system_info(&pf);
	ret = process_tree(&pf, sret > 0 ? r->ts : 0, 0, 0);
	while (!ret && sret > 0) {
		ret = put_record(&pf, r);
		if (++n % PROGRESS_EVERY == 0 && opts.progress)
			opts.progress(opts.progress_ctx, n);
		if (!ret)
			sret = ktrace_stream_next(s, &r, err);
	}
	/* a record the trace cannot hold ends it as damage does; out of memory: no end */
	if (ret == -ENOMEM)
		goto out;
	if (finish(&pf))
		ret = -ENOMEM;
	if (ret == -ERANGE)
		kt_stream_record_error(s, r, err, ret, "CPU %d: Perfetto takes CPUs 0 to %d", r->cpu,
				       MAX_CPUS - 1);
	if (!ret)
		ret = sret < 0 ? sret : 0;   /* the trace is complete up to the damage */
out:
	if (ret == -ENOMEM)
		ktrace_error_set(err, ret, "out of memory");
	pf_free(&pf);
	return ret;
}
