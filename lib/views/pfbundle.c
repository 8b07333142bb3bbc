// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU's FtraceEventBundle, compact sched and all.  See pfbundle.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "views/pfarena.h"
#include "views/pfbundle.h"

/* A growing array of n elements of one type. */
#define GROW(arr, n, cap)						\
	((n) < (cap) ? 0 : grow((void **)&(arr), &(cap), sizeof(*(arr))))

struct kt_pfbundle {
	unsigned int cpu;
	struct kt_pfarena *arena;
	bool lost;

	Perfetto__Protos__FtraceEvent **events;
	size_t nevents, events_cap;

	/* the descriptors of its generic events */
	Perfetto__Protos__FtraceEventBundle__GenericEventDescriptor **geds;
	size_t ngeds, geds_cap;

	/* CompactSched's arrays */
	uint64_t *sw_ts, last_sw;
	int64_t *sw_state;
	int32_t *sw_pid, *sw_prio;
	uint32_t *sw_comm;
	size_t nsw, sw_cap;
	uint64_t *wk_ts, last_wk;
	int32_t *wk_pid, *wk_cpu, *wk_prio;
	uint32_t *wk_comm, *wk_flags;
	size_t nwk, wk_cap;

	/* the interned comms: the table, and its index by hash */
	char **strs;
	size_t nstrs, strs_cap;
	uint32_t *hash;		/* index + 1; 0 free */
	size_t hash_cap;
};

static int grow(void **arr, size_t *cap, size_t size)
{
	size_t n = *cap ? *cap * 2 : 256;
	void *p = realloc(*arr, n * size);

	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

struct kt_pfbundle *kt_pfbundle_new(unsigned int cpu)
{
	struct kt_pfbundle *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->cpu = cpu;
	b->arena = kt_pfarena_new();
	if (!b->arena) {
		free(b);
		return NULL;
	}
	return b;
}

void kt_pfbundle_free(struct kt_pfbundle *b)
{
	if (!b)
		return;
	kt_pfarena_free(b->arena);
	free(b->events);
	free(b->geds);
	free(b->sw_ts);
	free(b->sw_state);
	free(b->sw_pid);
	free(b->sw_prio);
	free(b->sw_comm);
	free(b->wk_ts);
	free(b->wk_pid);
	free(b->wk_cpu);
	free(b->wk_prio);
	free(b->wk_comm);
	free(b->wk_flags);
	free(b->strs);
	free(b->hash);
	free(b);
}

struct kt_pfarena *kt_pfbundle_arena(struct kt_pfbundle *b)
{
	return b->arena;
}

Perfetto__Protos__FtraceEvent *kt_pfbundle_event(struct kt_pfbundle *b)
{
	Perfetto__Protos__FtraceEvent *e;

	if (GROW(b->events, b->nevents, b->events_cap))
		return NULL;
	e = kt_pfarena_alloc(b->arena, sizeof(*e));
	if (!e)
		return NULL;
	perfetto__protos__ftrace_event__init(e);
	b->events[b->nevents++] = e;
	return e;
}

int kt_pfbundle_describe(struct kt_pfbundle *b,
			 const Perfetto__Protos__FtraceEventBundle__GenericEventDescriptor *ged)
{
	size_t i;

	for (i = b->ngeds; i--;)
		if (b->geds[i] == ged)
			return 0;
	if (GROW(b->geds, b->ngeds, b->geds_cap))
		return -ENOMEM;
	/* protobuf-c's arrays are not const; packing only reads it */
	b->geds[b->ngeds++] = (void *)ged;
	return 0;
}

static size_t str_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/* The index of comm in the bundle's table, added when new; -ENOMEM. */
static long intern(struct kt_pfbundle *b, const char *comm)
{
	size_t i;
	uint32_t id;

	if ((b->nstrs + 1) * 2 > b->hash_cap) {
		size_t cap = b->hash_cap ? b->hash_cap * 2 : 256, k;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -ENOMEM;
		for (k = 0; k < b->nstrs; k++) {
			for (i = str_hash(b->strs[k]) & (cap - 1); h[i]; i = (i + 1) & (cap - 1))
				;
			h[i] = (uint32_t)k + 1;
		}
		free(b->hash);
		b->hash = h;
		b->hash_cap = cap;
	}
	for (i = str_hash(comm) & (b->hash_cap - 1); (id = b->hash[i]);
	     i = (i + 1) & (b->hash_cap - 1))
		if (!strcmp(b->strs[id - 1], comm))
			return id - 1;
	if (GROW(b->strs, b->nstrs, b->strs_cap))
		return -ENOMEM;
	b->strs[b->nstrs] = kt_pfarena_strndup(b->arena, comm, 16);
	if (!b->strs[b->nstrs])
		return -ENOMEM;
	b->hash[i] = (uint32_t)++b->nstrs;
	return (long)b->nstrs - 1;
}

static int grow_sw(struct kt_pfbundle *b)
{
	size_t cap = b->sw_cap ? b->sw_cap * 2 : 256;

#define RE(a) do { void *p = realloc(a, cap * sizeof(*(a))); if (!p) return -ENOMEM; a = p; } while (0)
	RE(b->sw_ts); RE(b->sw_state); RE(b->sw_pid); RE(b->sw_prio); RE(b->sw_comm);
	b->sw_cap = cap;
	return 0;
}

static int grow_wk(struct kt_pfbundle *b)
{
	size_t cap = b->wk_cap ? b->wk_cap * 2 : 256;

	RE(b->wk_ts); RE(b->wk_pid); RE(b->wk_cpu); RE(b->wk_prio); RE(b->wk_comm);
	RE(b->wk_flags);
#undef RE
	b->wk_cap = cap;
	return 0;
}

int kt_pfbundle_switch(struct kt_pfbundle *b, uint64_t ts, int64_t prev_state,
		       int32_t next_pid, int32_t next_prio, const char *next_comm)
{
	long c = intern(b, next_comm);

	if (c < 0)
		return (int)c;
	if (b->nsw == b->sw_cap && grow_sw(b))
		return -ENOMEM;
	/* The first absolute, each next the delta from the one before. */
	b->sw_ts[b->nsw] = b->nsw ? ts - b->last_sw : ts;
	b->last_sw = ts;
	b->sw_state[b->nsw] = prev_state;
	b->sw_pid[b->nsw] = next_pid;
	b->sw_prio[b->nsw] = next_prio;
	b->sw_comm[b->nsw] = (uint32_t)c;
	b->nsw++;
	return 0;
}

int kt_pfbundle_waking(struct kt_pfbundle *b, uint64_t ts, int32_t pid,
		       int32_t target_cpu, int32_t prio, const char *comm,
		       uint32_t common_flags)
{
	long c = intern(b, comm);

	if (c < 0)
		return (int)c;
	if (b->nwk == b->wk_cap && grow_wk(b))
		return -ENOMEM;
	b->wk_ts[b->nwk] = b->nwk ? ts - b->last_wk : ts;
	b->last_wk = ts;
	b->wk_pid[b->nwk] = pid;
	b->wk_cpu[b->nwk] = target_cpu;
	b->wk_prio[b->nwk] = prio;
	b->wk_comm[b->nwk] = (uint32_t)c;
	b->wk_flags[b->nwk] = common_flags;
	b->nwk++;
	return 0;
}

void kt_pfbundle_lost(struct kt_pfbundle *b)
{
	b->lost = true;
}

size_t kt_pfbundle_count(const struct kt_pfbundle *b)
{
	return b->nevents + b->nsw + b->nwk;
}

/*
 * Packed whole in memory, sized once: protobuf-c's pack writes a nested
 * message and moves it behind its length (one pass), where packing into
 * a ProtobufCBuffer sizes every nested message again at every level
 * (two fifths of the time, with a stream's fwrite per tag another fifth).
 */
int kt_pfbundle_put_packet(Perfetto__Protos__TracePacket *p, FILE *out)
{
	Perfetto__Protos__Trace tr = PERFETTO__PROTOS__TRACE__INIT;
	uint8_t *buf;
	size_t len;
	int ret;

	p->optional_trusted_packet_sequence_id_case =
		PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	p->trusted_packet_sequence_id = 1;
	tr.n_packet = 1;
	tr.packet = &p;
	len = protobuf_c_message_get_packed_size(&tr.base);
	buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	ret = protobuf_c_message_pack(&tr.base, buf) == len &&
	      fwrite(buf, 1, len, out) == len ? 0 : -EIO;
	free(buf);
	return ret;
}

int kt_pfbundle_write(struct kt_pfbundle *b, FILE *out)
{
	Perfetto__Protos__FtraceEventBundle__CompactSched cs =
		PERFETTO__PROTOS__FTRACE_EVENT_BUNDLE__COMPACT_SCHED__INIT;
	Perfetto__Protos__FtraceEventBundle fb = PERFETTO__PROTOS__FTRACE_EVENT_BUNDLE__INIT;
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	int ret;

	if (!kt_pfbundle_count(b))
		return 0;
	fb.has_cpu = 1;
	fb.cpu = b->cpu;
	fb.n_event = b->nevents;
	fb.event = b->events;
	fb.n_generic_event_descriptors = b->ngeds;
	fb.generic_event_descriptors = b->geds;
	if (b->lost) {
		fb.has_lost_events = 1;
		fb.lost_events = 1;
	}
	if (b->nsw || b->nwk) {
		cs.n_intern_table = b->nstrs;
		cs.intern_table = b->strs;
		cs.n_switch_timestamp = cs.n_switch_prev_state = cs.n_switch_next_pid =
			cs.n_switch_next_prio = cs.n_switch_next_comm_index = b->nsw;
		cs.switch_timestamp = b->sw_ts;
		cs.switch_prev_state = b->sw_state;
		cs.switch_next_pid = b->sw_pid;
		cs.switch_next_prio = b->sw_prio;
		cs.switch_next_comm_index = b->sw_comm;
		cs.n_waking_timestamp = cs.n_waking_pid = cs.n_waking_target_cpu =
			cs.n_waking_prio = cs.n_waking_comm_index =
			cs.n_waking_common_flags = b->nwk;
		cs.waking_timestamp = b->wk_ts;
		cs.waking_pid = b->wk_pid;
		cs.waking_target_cpu = b->wk_cpu;
		cs.waking_prio = b->wk_prio;
		cs.waking_comm_index = b->wk_comm;
		cs.waking_common_flags = b->wk_flags;
		fb.compact_sched = &cs;
	}
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS;
	p.ftrace_events = &fb;
	ret = kt_pfbundle_put_packet(&p, out);
	b->nevents = b->nsw = b->nwk = b->nstrs = b->ngeds = 0;
	b->lost = false;
	if (b->hash)
		memset(b->hash, 0, b->hash_cap * sizeof(*b->hash));
	kt_pfarena_reset(b->arena);
	return ret;
}
