// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks as interned callstacks of samples.  See pfstack.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode/decoder.h"
#include "decode/kstack.h"
#include "decode/ustack.h"
#include "views/pfarena.h"
#include "views/pfbundle.h"
#include "views/pfstack.h"

/* Interned keys (bytes) to iids, 1 up: open addressing. */
struct imap {
	struct ientry {
		void *key;
		size_t len;
		uint64_t iid;
	} *v;
	size_t n, cap;
};

struct kt_pfstack {
	struct tep_handle *tep;
	struct kt_ustack *u;
	struct imap names, paths, maps, frames, stacks;
	struct kt_pfarena *a;
	/* the packet's new entries */
	Perfetto__Protos__InternedData id;
	size_t cap_names, cap_paths, cap_maps, cap_frames, cap_stacks;
};

static size_t hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	size_t h = 1469598103934665603ull;

	while (len--)
		h = (h ^ *p++) * 1099511628211ull;
	return h;
}

static void imap_free(struct imap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->v[i].key);
	free(m->v);
}

/* key's iid; *fresh when it was given now.  0 with no memory. */
static uint64_t imap_get(struct imap *m, const void *key, size_t len, bool *fresh)
{
	size_t i;

	*fresh = false;
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024, k;
		struct ientry *v = calloc(cap, sizeof(*v));

		if (!v)
			return 0;
		for (k = 0; k < m->cap; k++) {
			if (!m->v[k].key)
				continue;
			for (i = hash(m->v[k].key, m->v[k].len) & (cap - 1); v[i].key;
			     i = (i + 1) & (cap - 1))
				;
			v[i] = m->v[k];
		}
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	for (i = hash(key, len) & (m->cap - 1); m->v[i].key; i = (i + 1) & (m->cap - 1))
		if (m->v[i].len == len && !memcmp(m->v[i].key, key, len))
			return m->v[i].iid;
	m->v[i].key = malloc(len ? len : 1);
	if (!m->v[i].key)
		return 0;
	memcpy(m->v[i].key, key, len);
	m->v[i].len = len;
	m->v[i].iid = ++m->n;
	*fresh = true;
	return m->n;
}

struct kt_pfstack *kt_pfstack_new(struct tep_handle *tep, struct kt_ustack *u)
{
	struct kt_pfstack *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->tep = tep;
	s->u = u;
	s->a = kt_pfarena_new();
	if (!s->a) {
		free(s);
		return NULL;
	}
	return s;
}

void kt_pfstack_free(struct kt_pfstack *s)
{
	if (!s)
		return;
	imap_free(&s->names);
	imap_free(&s->paths);
	imap_free(&s->maps);
	imap_free(&s->frames);
	imap_free(&s->stacks);
	kt_pfarena_free(s->a);
	free(s);
}

bool kt_pfstack_is_stack(const struct tep_event *e)
{
	return !strcmp(e->system, "ftrace") &&
	       (!strcmp(e->name, "kernel_stack") || !strcmp(e->name, "user_stack"));
}

/* Room for one more in a packet's list of new entries. */
static void *more(struct kt_pfstack *s, void ***list, size_t n, size_t *cap, size_t size)
{
	void *e;

	if (n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		void **l = kt_pfarena_alloc(s->a, c * sizeof(*l));

		if (!l)
			return NULL;
		if (n)
			memcpy(l, *list, n * sizeof(*l));
		*list = l;
		*cap = c;
	}
	e = kt_pfarena_alloc(s->a, size);
	if (e)
		(*list)[n] = e;
	return e;
}

static Perfetto__Protos__InternedString *new_string(struct kt_pfstack *s,
						     Perfetto__Protos__InternedString ***list,
						     size_t *n, size_t *cap, uint64_t iid,
						     const char *str)
{
	Perfetto__Protos__InternedString *is = more(s, (void ***)list, *n, cap, sizeof(*is));
	size_t len = strlen(str);

	if (!is)
		return NULL;
	perfetto__protos__interned_string__init(is);
	is->has_iid = is->has_str = 1;
	is->iid = iid;
	is->str.len = len;
	is->str.data = kt_pfarena_alloc(s->a, len + 1);
	if (!is->str.data)
		return NULL;
	memcpy(is->str.data, str, len);
	(*n)++;
	return is;
}

/* The iid of the mapping of path (a file, or a name in brackets). */
static uint64_t mapping(struct kt_pfstack *s, const char *path)
{
	Perfetto__Protos__InternedData *d = &s->id;
	Perfetto__Protos__Mapping *m;
	uint64_t piid, miid;
	bool fresh;

	miid = imap_get(&s->maps, path, strlen(path), &fresh);
	if (!miid || !fresh)
		return miid;
	piid = imap_get(&s->paths, path, strlen(path), &fresh);
	if (!piid || !new_string(s, &d->mapping_paths, &d->n_mapping_paths,
				 &s->cap_paths, piid, path))
		return 0;
	m = more(s, (void ***)&d->mappings, d->n_mappings, &s->cap_maps, sizeof(*m));
	if (!m)
		return 0;
	perfetto__protos__mapping__init(m);
	m->has_iid = 1;
	m->iid = miid;
	m->path_string_ids = kt_pfarena_alloc(s->a, sizeof(*m->path_string_ids));
	if (!m->path_string_ids)
		return 0;
	m->path_string_ids[0] = piid;
	m->n_path_string_ids = 1;
	d->n_mappings++;
	return miid;
}

/* The iid of the frame of function name in mapping path, at pc. */
static uint64_t frame(struct kt_pfstack *s, const char *name, const char *path,
		      uint64_t pc)
{
	Perfetto__Protos__InternedData *d = &s->id;
	Perfetto__Protos__Frame *f;
	uint64_t key[2], fiid;
	bool fresh;

	key[1] = mapping(s, path);
	if (!key[1])
		return 0;
	key[0] = imap_get(&s->names, name, strlen(name), &fresh);
	if (!key[0])
		return 0;
	if (fresh && !new_string(s, &d->function_names, &d->n_function_names,
				 &s->cap_names, key[0], name))
		return 0;
	fiid = imap_get(&s->frames, key, sizeof(key), &fresh);
	if (!fiid || !fresh)
		return fiid;
	f = more(s, (void ***)&d->frames, d->n_frames, &s->cap_frames, sizeof(*f));
	if (!f)
		return 0;
	perfetto__protos__frame__init(f);
	f->has_iid = f->has_function_name_id = f->has_mapping_id = f->has_rel_pc = 1;
	f->iid = fiid;
	f->function_name_id = key[0];
	f->mapping_id = key[1];
	f->rel_pc = pc;
	d->n_frames++;
	return fiid;
}

/* Its frames' iids, outermost first (Perfetto's "bottom frame first"). */
static int frames_of(struct kt_pfstack *s, const struct kt_event *ev, uint64_t *ids,
		     int *nids)
{
	unsigned long long a[KT_KSTACK_MAX], tgid = 0;
	bool user = kt_ustack_is_event(ev->event);
	struct tep_format_field *ft;
	char buf[64];
	int n, i;

	n = kt_kstack_read(s->tep, ev->event, ev->record, a,
			   user ? KT_USTACK_MAX : KT_KSTACK_MAX, true);
	*nids = 0;
	if (n <= 0)
		return 0;
	ft = user ? tep_find_field(ev->event, "tgid") : NULL;
	if (ft)
		tep_read_number_field(ft, ev->record->data, &tgid);
	for (i = n - 1; i >= 0; i--) {
		const char *name, *path;
		uint64_t pc = a[i];

		if (!a[i] || a[i] == ~0ULL)
			continue;
		if (user) {
			struct kt_uframe f = { 0 };

			if (s->u)
				kt_ustack_frame(s->u, (int)tgid, ev->record->ts, a[i], &f);
			snprintf(buf, sizeof(buf), "0x%llx", a[i]);
			name = f.sym ? f.sym : buf;
			path = f.path ? f.path : "[unknown]";
			if (f.path)
				pc = f.off;
		} else {
			name = tep_find_function(s->tep, a[i]);
			if (!name) {
				snprintf(buf, sizeof(buf), "0x%llx", a[i]);
				name = buf;
			}
			path = "[kernel.kallsyms]";
		}
		ids[*nids] = frame(s, name, path, pc);
		if (!ids[*nids])
			return -ENOMEM;
		(*nids)++;
	}
	return 0;
}

int kt_pfstack_write(struct kt_pfstack *s, const struct kt_event *ev, int tgid,
		     int tid, FILE *out)
{
	Perfetto__Protos__TracePacket p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__PerfSample ps = PERFETTO__PROTOS__PERF_SAMPLE__INIT;
	Perfetto__Protos__InternedData *d = &s->id;
	uint64_t ids[KT_KSTACK_MAX], ciid;
	bool fresh;
	int n, ret;

	perfetto__protos__interned_data__init(d);
	s->cap_names = s->cap_paths = s->cap_maps = s->cap_frames = s->cap_stacks = 0;
	ret = frames_of(s, ev, ids, &n);
	if (ret || !n)
		goto out;
	ciid = imap_get(&s->stacks, ids, (size_t)n * sizeof(*ids), &fresh);
	ret = -ENOMEM;
	if (!ciid)
		goto out;
	if (fresh) {
		Perfetto__Protos__Callstack *c = more(s, (void ***)&d->callstacks, 0,
						      &s->cap_stacks, sizeof(*c));

		if (!c)
			goto out;
		perfetto__protos__callstack__init(c);
		c->has_iid = 1;
		c->iid = ciid;
		c->frame_ids = ids;
		c->n_frame_ids = (size_t)n;
		d->n_callstacks = 1;
	}
	ps.has_cpu = ps.has_pid = ps.has_tid = ps.has_callstack_iid = 1;
	ps.cpu = (uint32_t)ev->cpu;
	ps.pid = (uint32_t)tgid;
	ps.tid = (uint32_t)tid;
	ps.callstack_iid = ciid;
	p.has_timestamp = 1;
	p.timestamp = ev->record->ts;
	p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PERF_SAMPLE;
	p.perf_sample = &ps;
	if (d->n_mapping_paths || d->n_function_names || d->n_mappings || d->n_frames ||
	    d->n_callstacks)
		p.interned_data = d;
	p.has_sequence_flags = 1;
	p.sequence_flags = PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	ret = kt_pfbundle_put_packet(&p, out);
out:
	kt_pfarena_reset(s->a);
	return ret;
}
