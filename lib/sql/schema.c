// SPDX-License-Identifier: GPL-2.0
/*
 * The tables a recording offers and how a column reads a record.  See
 * schema.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "analyze/evcache.h"
#include "decode/fastfmt.h"
#include "decode/symbols.h"
#include "base/byteorder.h"
#include "sql/schema.h"

struct kt_schema {
	struct tep_handle *tep;
	struct kt_schema_table *t;
	size_t nt;
	long *by_id;			/* event id -> its table's index, ids < nid */
	int nid;
};

size_t kt_schema_ntables(const struct kt_schema *s)
{
	return s->nt;
}

const struct kt_schema_table *kt_schema_table(const struct kt_schema *s, size_t i)
{
	return i < s->nt ? &s->t[i] : NULL;
}

long kt_schema_event_table(const struct kt_schema *s, int id)
{
	return id >= 0 && id < s->nid ? s->by_id[id] : -1;
}

static bool has_table(const struct kt_schema *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nt; i++)
		if (!strcasecmp(s->t[i].name, name))
			return true;
	return false;
}

static int add_col(struct kt_schema_table *t, const char *name, enum kt_col_kind kind,
		   struct tep_format_field *f)
{
	struct kt_schema_col *c = realloc(t->cols, (size_t)(t->ncols + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	t->cols = c;
	c[t->ncols].name = strdup(name);
	if (!c[t->ncols].name)
		return -ENOMEM;
	c[t->ncols].kind = kind;
	c[t->ncols].f = f;
	c[t->ncols].swap = f && f->event && f->event->tep &&
			   tep_is_file_bigendian(f->event->tep) != tep_is_local_bigendian(f->event->tep);
	t->ncols++;
	return 0;
}

static bool is_common(const char *name)
{
	return !strcmp(name, "ts") || !strcmp(name, "cpu") || !strcmp(name, "pid") ||
	       !strcmp(name, "comm");
}

/* An event's columns: its fields, then the names report's JSON adds. */
static int event_cols(struct kt_schema_table *t, struct tep_event *e)
{
	struct tep_format_field *f, *nr = NULL, *ret = NULL;
	char name[160];
	int err = 0;

	for (f = e->format.fields; f && !err; f = f->next) {
		snprintf(name, sizeof(name), "%s%s", is_common(f->name) ? "field_" : "", f->name);
		if (f->flags & TEP_FIELD_IS_STRING)
			err = add_col(t, name, KT_COL_STR, f);
		else if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
			err = add_col(t, name, KT_COL_ARRAY, f);
		else
			err = add_col(t, name, KT_COL_NUM, f);
		if (!strcmp(f->name, "id") || !strcmp(f->name, "__syscall_nr"))
			nr = f;
		if (!strcmp(f->name, "ret"))
			ret = f;
	}
	if (err || !e->system)
		return err;
	if (nr && (!strcmp(e->system, "raw_syscalls") || !strcmp(e->system, "syscalls")))
		err = add_col(t, "syscall", KT_COL_SYSCALL, nr);
	if (!err && ret && (!strcmp(e->system, "raw_syscalls") || !strcmp(e->system, "syscalls")))
		err = add_col(t, "errno", KT_COL_ERRNO, ret);
	if (!err && !strcmp(e->system, "sched") && !strcmp(e->name, "sched_switch") &&
	    (f = tep_find_field(e, "prev_state")))
		err = add_col(t, "prev_state_name", KT_COL_STATE, f);
	if (!err && !strcmp(e->system, "irq") && !strncmp(e->name, "softirq_", 8) &&
	    (f = tep_find_field(e, "vec")))
		err = add_col(t, "vec_name", KT_COL_VEC, f);
	return err;
}

static int add_table(struct kt_schema *s, const char *name, enum kt_tab_kind kind,
		     struct tep_event *ev, const char *const *fixed)
{
	struct kt_schema_table *v = realloc(s->t, (s->nt + 1) * sizeof(*v)), *t;
	int err = 0;

	if (!v)
		return -ENOMEM;
	s->t = v;
	t = &v[s->nt];
	memset(t, 0, sizeof(*t));
	t->name = strdup(name);
	t->kind = kind;
	t->ev = ev;
	s->nt++;
	if (!t->name)
		return -ENOMEM;
	if (kind == KT_TAB_EVENT) {
		err = add_col(t, "ts", KT_COL_NUM, NULL);
		err = err ?: add_col(t, "cpu", KT_COL_NUM, NULL);
		err = err ?: add_col(t, "pid", KT_COL_NUM, NULL);
		err = err ?: add_col(t, "comm", KT_COL_STR, NULL);
		return err ?: event_cols(t, ev);
	}
	/* "name:TYPE" pairs: the fixed tables' columns. */
	for (; *fixed && !err; fixed++)
		err = add_col(t, *fixed + 1, **fixed == 'i' ? KT_COL_NUM : KT_COL_STR, NULL);
	return err;
}

static bool name_shared(struct tep_event **evs, int n, struct tep_event *e)
{
	int i;

	for (i = 0; i < n; i++)
		if (evs[i] != e && !strcmp(evs[i]->name, e->name))
			return true;
	return false;
}

static int map_id(struct kt_schema *s, int id)
{
	long *b;
	int nid;

	if (id < 0 || id >= 65536)
		return 0;
	if (id >= s->nid) {
		nid = id + 1;
		b = realloc(s->by_id, (size_t)nid * sizeof(*b));
		if (!b)
			return -ENOMEM;
		memset(b + s->nid, 0xff, (size_t)(nid - s->nid) * sizeof(*b));	/* -1 */
		s->by_id = b;
		s->nid = nid;
	}
	s->by_id[id] = (long)s->nt - 1;
	return 0;
}

static int make_tables(struct kt_schema *s)
{
	static const char *const events[] = { "its", "icpu", "ipid", "tcomm", "tsystem", "tevent", NULL };
	static const char *const tasks[] = { "ipid", "itgid", "tcomm", "ievents", "ifirst_ts", "ilast_ts", NULL };
	static const char *const losses[] = { "ibuffer", "icpu", "iafter_ts", "ibefore_ts", "ilost", NULL };
	static const char *const meta[] = { "tkey", "tvalue", NULL };
	struct tep_event **evs = tep_list_events(s->tep, TEP_EVENT_SORT_NAME);
	int i, n = tep_get_events_count(s->tep), err = 0;
	char name[300];

	for (i = 0; evs && i < n && !err; i++) {
		if (!evs[i]->name || !evs[i]->system)
			continue;
		if (name_shared(evs, n, evs[i]))
			snprintf(name, sizeof(name), "%s_%s", evs[i]->system, evs[i]->name);
		else
			snprintf(name, sizeof(name), "%s", evs[i]->name);
		if (has_table(s, name))
			continue;
		err = add_table(s, name, KT_TAB_EVENT, evs[i], NULL);
		err = err ?: map_id(s, evs[i]->id);
	}
	err = err ?: add_table(s, "events", KT_TAB_EVENTS, NULL, events);
	err = err ?: add_table(s, "tasks", KT_TAB_TASKS, NULL, tasks);
	err = err ?: add_table(s, "losses", KT_TAB_LOSSES, NULL, losses);
	return err ?: add_table(s, "meta", KT_TAB_META, NULL, meta);
}

struct kt_schema *kt_schema_new(struct tep_handle *tep)
{
	struct kt_schema *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return NULL;
	s->tep = tep;
	err = make_tables(s);
	if (err) {
		kt_schema_free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

void kt_schema_free(struct kt_schema *s)
{
	size_t i;
	int k;

	if (!s)
		return;
	for (i = 0; i < s->nt; i++) {
		for (k = 0; k < s->t[i].ncols; k++)
			free(s->t[i].cols[k].name);
		free(s->t[i].cols);
		free(s->t[i].name);
	}
	free(s->t);
	free(s->by_id);
	free(s);
}

/* An unsigned number of size bytes at p, in the file's byte order. */
static unsigned long long read_num(const unsigned char *p, int size, bool swap)
{
	switch (size) {
	case 1:
		return *p;
	case 2:
		return kt_get16(swap, p);
	case 4:
		return kt_get32(swap, p);
	default:
		return kt_get64(swap, p);
	}
}

bool kt_schema_col_num(const struct kt_schema_col *c, const struct tep_record *rec, long long *v)
{
	const struct tep_format_field *f = c->f;
	unsigned long long u;

	/* Numbers are 1, 2, 4 or 8 bytes; libtraceevent reads no others. */
	if (!f || f->offset < 0 || f->offset + f->size > rec->size ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return false;
	u = read_num((const unsigned char *)rec->data + f->offset, f->size, c->swap);
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && (u >> (f->size * 8 - 1)) & 1)
		u |= ~0ULL << (f->size * 8);
	*v = (long long)u;
	return true;
}

int kt_schema_array(const struct kt_schema_col *c, const struct tep_record *rec, int first, unsigned long long *v, int max)
{
	struct tep_format_field *f = c->f;
	int off = f->offset, size = f->size, es = f->elementsize, i, n;
	unsigned long long d;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if (f->offset < 0 || f->offset + f->size > rec->size ||
		    tep_read_number_field(f, rec->data, &d))
			return -1;
		off = (int)(d & 0xffff);
		size = (int)(d >> 16);
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	if (es != 1 && es != 2 && es != 4 && es != 8)
		es = 1;
	/* A fixed array longer than its record (kernel_stack's caller[8]
	 * holds the frames the kernel had): what the record holds. */
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC) && off >= 0 && off <= rec->size &&
	    off + size > rec->size)
		size = rec->size - off;
	if (off < 0 || size < 0 || off + size > rec->size)
		return -1;
	n = size / es;
	for (i = 0; first + i < n && i < max; i++)
		v[i] = read_num((const unsigned char *)rec->data + off + (first + i) * es, es, c->swap);
	return i;
}

/* An array field as "[n,n,...]", bounds checked; NULL when unreadable. */
static const char *array_text(const struct kt_schema_col *c, struct tep_record *rec,
			      char *buf, size_t len)
{
	unsigned long long v[64];
	int i, k = 0, n = len < 32 ? -1 : kt_schema_array(c, rec, 0, v, 64);
	size_t at = 0;

	if (n < 0)
		return NULL;
	buf[at++] = '[';
	/* kt_fmt_udec, not snprintf: a fifth of a syscall table's load. */
	for (i = 0; i < n && at + 24 < len; i++) {
		if (k + i)
			buf[at++] = ',';
		at = (size_t)(kt_fmt_udec(buf + at, v[i], 0, ' ') - buf);
		if (i == 63) {		/* the next 64 */
			k += 64;
			n = kt_schema_array(c, rec, k, v, 64);
			i = -1;
		}
	}
	buf[at++] = ']';
	buf[at] = '\0';
	return buf;
}

const char *kt_schema_text(const char *machine, const struct kt_schema_col *c,
			   struct tep_record *rec, char *buf, size_t len)
{
	long long v;
	int nargs;

	switch (c->kind) {
	case KT_COL_STR:
		kt_field_str(c->f, rec, buf, len);
		return buf;
	case KT_COL_ARRAY:
		return array_text(c, rec, buf, len);
	case KT_COL_SYSCALL:
		return kt_schema_col_num(c, rec, &v) ? kt_syscall_name(machine, (long)v, &nargs) : NULL;
	case KT_COL_ERRNO:
		return kt_schema_col_num(c, rec, &v) && v < 0 ? kt_errno_name(-v) : NULL;
	case KT_COL_STATE:
		return kt_schema_col_num(c, rec, &v) ?
		       kt_task_state_name((unsigned long long)v, buf, len) : NULL;
	case KT_COL_VEC:
		return kt_schema_col_num(c, rec, &v) ? kt_softirq_name((unsigned long long)v) : NULL;
	case KT_COL_NUM:
		break;
	}
	return NULL;
}
