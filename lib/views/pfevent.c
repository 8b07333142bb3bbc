// SPDX-License-Identifier: GPL-2.0
/*
 * A record as a Perfetto FtraceEvent, typed or generic.  See pfevent.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode/decoder.h"
#include "decode/symbols.h"
#include "views/pfarena.h"
#include "views/pfevent.h"

/* What an event id is to Perfetto, found at its first record. */
struct evmap {
	bool seen;
	/* FtraceEvent's field for it (typed), or NULL (generic) */
	const ProtobufCFieldDescriptor *oneof;
	/* per field of the typed message: the record's field, or NULL */
	struct tep_format_field **src;
	/* a generic event's descriptor; NULL: fields by name */
	Perfetto__Protos__FtraceEventBundle__GenericEventDescriptor *ged;
};

/*
 * A generic event's fields as numbers 1 to 31 of its descriptor (the
 * trace processor takes no more), each of a type that gives the trace
 * processor's args what GenericFtraceEvent's fields give: text a
 * string, a signed number sint64, an unsigned one int64 (its arg is a
 * signed integer either way).  The event's field number in FtraceEvent:
 * 65536 and up, where the trace processor looks for them.
 */
#define GEN_FIELDS_MAX 31
#define GEN_FIELD_ID(id) (65536 + (id))
enum { PB_INT64 = 3, PB_STRING = 9, PB_SINT64 = 18 };

struct kt_pfevent {
	struct tep_handle *tep;
	struct evmap *map;	/* by event id */
	int nmap;
	char machine[32];	/* "": not known */
};

/*
 * The system each typed message's events come from, by the name's
 * start: an event of the same name elsewhere is generic.
 */
static const struct {
	const char *prefix, *system;
} homes[] = {
	{ "sched_", "sched" },
	{ "irq_handler_", "irq" },
	{ "softirq_", "irq" },
	{ "sys_", "raw_syscalls" },
	{ "task_", "task" },
	{ "signal_", "signal" },
	{ "print", "ftrace" },
};

struct kt_pfevent *kt_pfevent_new(struct tep_handle *tep, const char *machine)
{
	struct kt_pfevent *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->tep = tep;
	snprintf(m->machine, sizeof(m->machine), "%s", machine ? machine : "");
	return m;
}

void kt_pfevent_free(struct kt_pfevent *m)
{
	int i;

	if (!m)
		return;
	for (i = 0; i < m->nmap; i++) {
		free(m->map[i].src);
		if (m->map[i].ged) {
			free(m->map[i].ged->event_descriptor.data);
			free(m->map[i].ged);
		}
	}
	free(m->map);
	free(m);
}

static const ProtobufCFieldDescriptor *typed(const struct tep_event *e)
{
	const ProtobufCFieldDescriptor *f;
	size_t i;

	if (!strcmp(e->name, "generic"))
		return NULL;
	f = protobuf_c_message_descriptor_get_field_by_name(
		&perfetto__protos__ftrace_event__descriptor, e->name);
	if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE)
		return NULL;
	for (i = 0; i < sizeof(homes) / sizeof(homes[0]); i++)
		if (!strncmp(e->name, homes[i].prefix, strlen(homes[i].prefix)))
			return strcmp(e->system, homes[i].system) ? NULL : f;
	return NULL;
}

static bool is_text(const struct tep_format_field *f);

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static size_t put_bytes(uint8_t *p, unsigned int num, const char *s, size_t len)
{
	size_t n = put_varint(p, (uint64_t)num << 3 | 2);

	n += put_varint(p + n, len);
	memcpy(p + n, s, len);
	return n + len;
}

/* The type a generic event's field has in its descriptor. */
static int gen_type(const struct tep_format_field *f)
{
	if (is_text(f) || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
		return PB_STRING;
	return f->flags & TEP_FIELD_IS_SIGNED ? PB_SINT64 : PB_INT64;
}

/*
 * e's GenericEventDescriptor, a DescriptorProto (name 1, field 2:
 * FieldDescriptorProto's name 1, number 3, type 5) in bytes.  0 with
 * none made (more fields than a descriptor takes), -ENOMEM.
 */
static int describe(struct evmap *em, const struct tep_event *e)
{
	Perfetto__Protos__FtraceEventBundle__GenericEventDescriptor *g;
	struct tep_format_field *f;
	size_t cap = strlen(e->name) + 16, n = 0, k;
	unsigned int num = 0;
	uint8_t *p, fd[128];

	for (f = e->format.fields; f; f = f->next, num++)
		cap += strlen(f->name) + 32;
	if (num > GEN_FIELDS_MAX)
		return 0;
	g = malloc(sizeof(*g));
	p = malloc(cap);
	if (!g || !p) {
		free(g);
		free(p);
		return -ENOMEM;
	}
	n = put_bytes(p, 1, e->name, strlen(e->name));
	num = 0;
	for (f = e->format.fields; f; f = f->next) {
		if (strlen(f->name) > sizeof(fd) - 16) {
			free(g);
			free(p);
			return 0;
		}
		k = put_bytes(fd, 1, f->name, strlen(f->name));
		fd[k++] = 3 << 3;
		k += put_varint(fd + k, ++num);
		fd[k++] = 5 << 3;
		fd[k++] = (uint8_t)gen_type(f);
		n += put_bytes(p + n, 2, (const char *)fd, k);
	}
	perfetto__protos__ftrace_event_bundle__generic_event_descriptor__init(g);
	g->has_field_id = 1;
	g->field_id = GEN_FIELD_ID(e->id);
	g->group_name = e->system;
	g->has_event_descriptor = 1;
	g->event_descriptor.data = p;
	g->event_descriptor.len = n;
	em->ged = g;
	return 0;
}

static struct evmap *map_of(struct kt_pfevent *m, struct tep_event *e)
{
	struct evmap *em;

	if (e->id < 0 || e->id > 65535) {
		errno = EINVAL;
		return NULL;
	}
	if (e->id >= m->nmap) {
		int n = e->id + 1 > 2 * m->nmap ? e->id + 1 : 2 * m->nmap;
		struct evmap *v = realloc(m->map, (size_t)n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + m->nmap, 0, (size_t)(n - m->nmap) * sizeof(*v));
		m->map = v;
		m->nmap = n;
	}
	em = &m->map[e->id];
	if (em->seen)
		return em;
	em->oneof = typed(e);
	if (em->oneof) {
		const ProtobufCMessageDescriptor *md = em->oneof->descriptor;
		unsigned int i;

		em->src = calloc(md->n_fields ? md->n_fields : 1, sizeof(*em->src));
		if (!em->src)
			return NULL;
		for (i = 0; i < md->n_fields; i++)
			em->src[i] = tep_find_field(e, md->fields[i].name);
	} else if (describe(em, e)) {
		return NULL;
	}
	em->seen = true;
	return em;
}

/* A number field, sign-extended when the kernel's type is signed. */
static uint64_t num(const struct tep_format_field *f, const void *data)
{
	unsigned long long v = 0;

	tep_read_number_field((struct tep_format_field *)f, data, &v);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size > 0 && f->size < 8 &&
	    (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ULL << (f->size * 8);
	return v;
}

static bool is_text(const struct tep_format_field *f)
{
	return (f->flags & TEP_FIELD_IS_STRING) ||
	       ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
		f->type && strstr(f->type, "char"));
}

/* An array or string field's bytes and length. */
static const char *raw(const struct kt_event *ev, const struct tep_format_field *f,
		       int *len)
{
	const char *p;

	*len = 0;
	p = tep_get_field_raw(NULL, ev->event, f->name, ev->record, len, 0);
	if (p && !*len && (f->flags & TEP_FIELD_IS_ARRAY))
		*len = ev->record->size - f->offset;
	return p;
}

static char *text(struct kt_pfarena *a, const struct kt_event *ev,
		  const struct tep_format_field *f)
{
	int len;
	const char *p = raw(ev, f, &len);

	return kt_pfarena_strndup(a, p ? p : "", p && len > 0 ? (size_t)len : 0);
}

/* One field of a typed message from the record's field of its name. */
static int set_field(void *msg, const ProtobufCFieldDescriptor *d,
		     const struct tep_format_field *f, const struct kt_event *ev,
		     struct kt_pfarena *a)
{
	char *at = (char *)msg + d->offset;
	uint64_t v;

	if (d->type == PROTOBUF_C_TYPE_STRING) {
		if (!is_text(f))
			return 0;
		*(char **)at = text(a, ev, f);
		return *(char **)at ? 0 : -ENOMEM;
	}
	if (d->label == PROTOBUF_C_LABEL_REPEATED) {
		/* sys_enter's args[]: the array's elements. */
		int len, es = f->elementsize, i, n;
		const char *p = raw(ev, f, &len);
		uint64_t *v;

		if (d->type != PROTOBUF_C_TYPE_UINT64 || !p ||
		    (es != 4 && es != 8) || len <= 0)
			return 0;
		n = len / es;
		v = kt_pfarena_alloc(a, (size_t)n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			v[i] = tep_read_number(ev->event->tep, p + i * es, es);
		*(size_t *)((char *)msg + d->quantifier_offset) = (size_t)n;
		*(uint64_t **)at = v;
		return 0;
	}
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING))
		return 0;
	v = num(f, ev->record->data);
	switch (d->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_UINT32:
		*(uint32_t *)at = (uint32_t)v;
		break;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_UINT64:
		*(uint64_t *)at = v;
		break;
	default:
		return 0;
	}
	if (d->label == PROTOBUF_C_LABEL_OPTIONAL)
		*(protobuf_c_boolean *)((char *)msg + d->quantifier_offset) = 1;
	return 0;
}

static int fill_typed(const struct kt_pfevent *m, const struct evmap *em, const struct kt_event *ev,
		      Perfetto__Protos__FtraceEvent *fe, struct kt_pfarena *a)
{
	const ProtobufCMessageDescriptor *md = em->oneof->descriptor;
	ProtobufCMessage *msg = kt_pfarena_alloc(a, md->sizeof_message);
	unsigned int i;
	int ret;

	if (!msg)
		return -ENOMEM;
	md->message_init(msg);
	for (i = 0; i < md->n_fields; i++) {
		if (!em->src[i])
			continue;
		ret = set_field(msg, &md->fields[i], em->src[i], ev, a);
		if (ret)
			return ret;
	}
	if (md == &perfetto__protos__sys_enter_ftrace_event__descriptor) {
		/* Only the arguments the call takes: the rest are leftovers. */
		Perfetto__Protos__SysEnterFtraceEvent *se = (void *)msg;
		int n = se->has_id && m->machine[0] ?
			kt_syscall_count_args(m->machine, (long)se->id) : -ENOENT;

		if (n >= 0 && (size_t)n < se->n_args)
			se->n_args = (size_t)n;
	}
	/* The oneof: its case is the field's number, the pointer its member. */
	*(uint32_t *)((char *)fe + em->oneof->quantifier_offset) = em->oneof->id;
	*(ProtobufCMessage **)((char *)fe + em->oneof->offset) = msg;
	return 0;
}

/* An array's elements as text, "1,2,3". */
static char *array_text(struct kt_pfarena *a, const struct kt_event *ev,
			const struct tep_format_field *f)
{
	int len, es = f->elementsize, i;
	const char *p = raw(ev, f, &len);
	size_t at = 0, cap;
	char *s;

	if (!p || len <= 0 || (es != 1 && es != 2 && es != 4 && es != 8))
		return kt_pfarena_strndup(a, "", 0);
	cap = (size_t)(len / es) * 21 + 1;
	s = kt_pfarena_alloc(a, cap);
	if (!s)
		return NULL;
	for (i = 0; i + es <= len; i += es)
		at += (size_t)snprintf(s + at, cap - at, "%s%llu", i ? "," : "",
				       tep_read_number(ev->event->tep, p + i, es));
	return s;
}

static int fill_generic(const struct kt_event *ev, Perfetto__Protos__FtraceEvent *fe,
			struct kt_pfarena *a)
{
	Perfetto__Protos__GenericFtraceEvent *g = kt_pfarena_alloc(a, sizeof(*g));
	Perfetto__Protos__GenericFtraceEvent__Field **fields, *fl;
	struct tep_format_field *f;
	size_t n = 0;

	if (!g)
		return -ENOMEM;
	perfetto__protos__generic_ftrace_event__init(g);
	g->event_name = ev->event->name;
	for (f = ev->event->format.fields; f; f = f->next)
		n++;
	fields = kt_pfarena_alloc(a, (n ? n : 1) * sizeof(*fields));
	fl = kt_pfarena_alloc(a, (n ? n : 1) * sizeof(*fl));
	if (!fields || !fl)
		return -ENOMEM;
	n = 0;
	for (f = ev->event->format.fields; f; f = f->next, n++) {
		Perfetto__Protos__GenericFtraceEvent__Field *x = &fl[n];

		perfetto__protos__generic_ftrace_event__field__init(x);
		x->name = f->name;
		if (is_text(f)) {
			x->value_case = PERFETTO__PROTOS__GENERIC_FTRACE_EVENT__FIELD__VALUE_STR_VALUE;
			x->str_value = text(a, ev, f);
		} else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
			x->value_case = PERFETTO__PROTOS__GENERIC_FTRACE_EVENT__FIELD__VALUE_STR_VALUE;
			x->str_value = array_text(a, ev, f);
		} else if (f->flags & TEP_FIELD_IS_SIGNED) {
			x->value_case = PERFETTO__PROTOS__GENERIC_FTRACE_EVENT__FIELD__VALUE_INT_VALUE;
			x->int_value = (int64_t)num(f, ev->record->data);
		} else {
			x->value_case = PERFETTO__PROTOS__GENERIC_FTRACE_EVENT__FIELD__VALUE_UINT_VALUE;
			x->uint_value = num(f, ev->record->data);
		}
		if (x->value_case == PERFETTO__PROTOS__GENERIC_FTRACE_EVENT__FIELD__VALUE_STR_VALUE &&
		    !x->str_value)
			return -ENOMEM;
		fields[n] = x;
	}
	g->n_field = n;
	g->field = fields;
	fe->event_case = PERFETTO__PROTOS__FTRACE_EVENT__EVENT_GENERIC;
	fe->generic = g;
	return 0;
}

/*
 * The event as its descriptor's fields, values alone: every field, as
 * GenericFtraceEvent gives every field, so the args are the same.
 */
static int fill_dense(const struct evmap *em, const struct kt_event *ev,
		      Perfetto__Protos__FtraceEvent *fe, struct kt_pfarena *a)
{
	const char *strs[GEN_FIELDS_MAX];
	ProtobufCMessageUnknownField *u = kt_pfarena_alloc(a, sizeof(*u));
	struct tep_format_field *f;
	size_t cap = 0, n, len;
	unsigned int i;
	uint8_t *p, hdr[10];

	if (!u)
		return -ENOMEM;
	for (f = ev->event->format.fields, i = 0; f; f = f->next, i++) {
		strs[i] = NULL;
		if (gen_type(f) == PB_STRING) {
			strs[i] = is_text(f) ? text(a, ev, f) : array_text(a, ev, f);
			if (!strs[i])
				return -ENOMEM;
			cap += strlen(strs[i]) + 2 + 10;
		} else {
			cap += 2 + 10;
		}
	}
	/* room for the length in front, written once the values are */
	p = kt_pfarena_alloc(a, cap + 10);
	if (!p)
		return -ENOMEM;
	n = 10;
	for (f = ev->event->format.fields, i = 0; f; f = f->next, i++) {
		uint64_t v;

		if (strs[i]) {
			n += put_bytes(p + n, i + 1, strs[i], strlen(strs[i]));
			continue;
		}
		v = num(f, ev->record->data);
		if (gen_type(f) == PB_SINT64)
			v = (v << 1) ^ (uint64_t)((int64_t)v >> 63);
		n += put_varint(p + n, (uint64_t)(i + 1) << 3);
		n += put_varint(p + n, v);
	}
	len = put_varint(hdr, n - 10);
	memcpy(p + 10 - len, hdr, len);
	/* protobuf-c packs an unknown field as its tag and these bytes */
	u->tag = (uint32_t)em->ged->field_id;
	u->wire_type = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
	u->len = n - 10 + len;
	u->data = p + 10 - len;
	fe->base.n_unknown_fields = 1;
	fe->base.unknown_fields = u;
	return 0;
}

int kt_pfevent_fill(struct kt_pfevent *m, const struct kt_event *ev,
		    Perfetto__Protos__FtraceEvent *fe, struct kt_pfarena *a,
		    const Perfetto__Protos__FtraceEventBundle__GenericEventDescriptor **ged)
{
	struct evmap *em = map_of(m, ev->event);

	*ged = NULL;
	if (!em)
		return errno == EINVAL ? 0 : -ENOMEM;
	fe->has_timestamp = 1;
	fe->timestamp = ev->record->ts;
	fe->has_pid = 1;
	fe->pid = (uint32_t)tep_data_pid(m->tep, ev->record);
	if (em->oneof)
		return fill_typed(m, em, ev, fe, a);
	if (!em->ged)
		return fill_generic(ev, fe, a);
	*ged = em->ged;
	return fill_dense(em, ev, fe, a);
}
