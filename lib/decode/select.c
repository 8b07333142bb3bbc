// SPDX-License-Identifier: GPL-2.0
/* The selection language of report and the tools after it: see select.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "base/log.h"
#include "decode/decoder.h"
#include "decode/select.h"
#include "file/reader.h"
#include "file/tracedat.h"

struct kt_select {
	const char *events[KT_SELECT_MAX];
	int nevents;
	const char *filters[KT_SELECT_MAX];
	int nfilters;
	int pids[KT_SELECT_MAX];
	int npids;
	const char *comms[KT_SELECT_MAX];
	int ncomms;
	const char *cpu_list;
	bool read_hidden;	/* kt_select_read_hidden() */
	const char *from_arg, *to_arg;
	/* Resolved. */
	bool cpus[KT_DAT_MAX_CPUS];
	struct kt_decoder_opts dopts;
	bool have_first;
	unsigned long long first;
};

struct kt_select *kt_select_new(void)
{
	return calloc(1, sizeof(struct kt_select));
}

void kt_select_free(struct kt_select *s)
{
	free(s);
}

static int add_str(const char **v, int *n, const char *str)
{
	if (*n >= KT_SELECT_MAX)
		return -E2BIG;
	v[(*n)++] = str;
	return 0;
}

int kt_select_add_event(struct kt_select *s, const char *spec)
{
	return add_str(s->events, &s->nevents, spec);
}

int kt_select_add_filter(struct kt_select *s, const char *filter)
{
	return add_str(s->filters, &s->nfilters, filter);
}

int kt_select_add_comm(struct kt_select *s, const char *glob)
{
	return add_str(s->comms, &s->ncomms, glob);
}

int kt_select_add_pid(struct kt_select *s, int pid)
{
	if (s->npids >= KT_SELECT_MAX)
		return -E2BIG;
	s->pids[s->npids++] = pid;
	return 0;
}

void kt_select_set_cpus(struct kt_select *s, const char *list) { s->cpu_list = list; }
void kt_select_read_hidden(struct kt_select *s) { s->read_hidden = true; }
void kt_select_set_from(struct kt_select *s, const char *t) { s->from_arg = t; }
void kt_select_set_to(struct kt_select *s, const char *t) { s->to_arg = t; }

bool kt_select_by_record(const struct kt_select *s)
{
	return s->nevents || s->nfilters || s->npids || s->ncomms;
}

bool kt_select_by_task(const struct kt_select *s)
{
	return s->nfilters || s->npids || s->ncomms;
}

bool kt_select_has_window(const struct kt_select *s)
{
	return s->from_arg || s->to_arg;
}

bool kt_select_any(const struct kt_select *s)
{
	return kt_select_by_record(s) || kt_select_has_window(s) || s->cpu_list;
}

/* "0,2-3" -> cpus[]; returns 0 or -EINVAL. */
static int parse_cpu_list(const char *list, bool *cpus, int n)
{
	const char *p = list;
	char *end;
	long a, b;

	do {
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a >= n)
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a || b >= n)
				return -EINVAL;
			p = end;
		}
		for (; a <= b; a++)
			cpus[a] = true;
	} while (*p++ == ',');
	return p[-1] ? -EINVAL : 0;
}

/*
 * "5.0", "5", "250ms", "@462.930127": ns.  Exact decimal arithmetic, no
 * floating point, so @T matches the printed timestamp to the digit.
 */
static int parse_time(const char *s, bool *absolute, unsigned long long *ns,
		      unsigned long long *unit)
{
	static const struct { const char *sfx; unsigned long long mul; } units[] = {
		{ "ns", 1ULL }, { "us", 1000ULL }, { "ms", 1000000ULL },
		{ "s", 1000000000ULL }, { "", 1000000000ULL },
	};
	unsigned long long whole = 0, frac = 0, fdiv = 1, mul = 0;
	const char *p = s;
	size_t i;

	*absolute = *p == '@';
	if (*absolute)
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > ULLONG_MAX / 10 - 10)
			return -ERANGE;
		whole = whole * 10 + (unsigned long long)(*p - '0');
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (fdiv < 1000000000ULL) {
				frac = frac * 10 + (unsigned long long)(*p - '0');
				fdiv *= 10;
			}
		}
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(p, units[i].sfx)) {
			mul = units[i].mul;
			break;
		}
	if (!mul)
		return -EINVAL;
	if (whole > ULLONG_MAX / mul)
		return -ERANGE;
	*ns = whole * mul + frac * mul / fdiv;
	/* What the last digit given is worth: @1.000002 ends at ...002999. */
	*unit = mul / fdiv ? mul / fdiv : 1;
	return 0;
}

/* Timestamp of the first record of the whole file (0 when empty). */
static int first_ts_fn(const struct kt_event *ev, void *arg)
{
	*(unsigned long long *)arg = ev->record->ts;
	return -ECANCELED;
}

static int resolve_time(struct kt_select *s, struct kt_reader *r,
			const char *arg, const char *opt, bool end,
			unsigned long long *out)
{
	unsigned long long unit;
	struct kt_decoder *d;
	bool absolute;
	int ret;

	ret = parse_time(arg, &absolute, out, &unit);
	if (ret) {
		kt_err("bad %s '%s'; give seconds from the first event (5.0, 250ms) or @T as printed (@462.930127)",
		       opt, arg);
		return -EINVAL;
	}
	if (!kt_reader_in_usecs(r)) {
		/* Raw clock counts: the number is a count, not seconds. */
		unsigned long long cnt;

		if (parse_time(arg, &absolute, &cnt, &unit) == 0)
			*out = cnt / 1000000000ULL;
		unit = 1;
	}
	/*
	 * @T takes in everything printed as T, and timestamps are printed
	 * rounded (libtraceevent adds half the divisor): @1.000002 covers
	 * 1.000001500 to 1.000002499.  A relative T is no printed stamp but
	 * a length of time: 2.0 is exactly 2.000000000 s after the first
	 * event, and --from 2 --to 3 is [2 s, 3 s] to the nanosecond.
	 */
	if (absolute) {
		if (end)
			*out += unit / 2 ? unit / 2 - 1 : 0;
		else
			*out = *out >= unit / 2 ? *out - unit / 2 : 0;
		return 0;
	}
	if (!s->have_first) {
		d = kt_decoder_new(r, NULL);
		if (!d)
			return -errno;
		s->first = 0;
		kt_decoder_run(d, first_ts_fn, &s->first);
		kt_decoder_free(d);
		s->have_first = true;
	}
	*out += s->first;
	return 0;
}

int kt_select_resolve(struct kt_select *s, struct kt_reader *r)
{
	int ret;

	memset(&s->dopts, 0, sizeof(s->dopts));
	memset(s->cpus, 0, sizeof(s->cpus));
	if (s->cpu_list) {
		if (parse_cpu_list(s->cpu_list, s->cpus, KT_DAT_MAX_CPUS)) {
			kt_err("bad --cpu '%s'; give a list like 0,2-3", s->cpu_list);
			return -EINVAL;
		}
		s->dopts.cpus = s->cpus;
		s->dopts.ncpus = KT_DAT_MAX_CPUS;
		s->dopts.read_hidden = s->read_hidden;
	}
	if (s->from_arg) {
		ret = resolve_time(s, r, s->from_arg, "--from", false, &s->dopts.from);
		if (ret)
			return ret;
		s->dopts.has_from = true;
	}
	if (s->to_arg) {
		ret = resolve_time(s, r, s->to_arg, "--to", true, &s->dopts.to);
		if (ret)
			return ret;
		s->dopts.has_to = true;
	}
	return 0;
}

bool kt_select_cpu(const struct kt_select *s, int cpu)
{
	if (!s || !s->dopts.cpus)
		return true;
	return cpu >= 0 && cpu < KT_DAT_MAX_CPUS && s->cpus[cpu];
}

void kt_select_window(const struct kt_select *s, bool *has_from,
		      unsigned long long *from, bool *has_to,
		      unsigned long long *to)
{
	*has_from = s->dopts.has_from;
	*from = s->dopts.from;
	*has_to = s->dopts.has_to;
	*to = s->dopts.to;
}

/* Add -e, -F, --pid and --comm to d; 0 or -errno (reported). */
static int add_selection(const struct kt_select *s, struct kt_decoder *d)
{
	char hint[512];
	int i, ret;

	for (i = 0; i < s->nevents; i++) {
		ret = kt_decoder_add_event(d, s->events[i]);
		if (ret == -ENOENT &&
		    !kt_decoder_suggest_event(d, s->events[i], hint, sizeof(hint))) {
			kt_err("no event '%s' in the file; did you mean %s?",
			       s->events[i], hint);
			return ret;
		}
		if (ret == -ENOENT) {
			kt_err("no event '%s' in the file; see the events it holds with 'ktrace report --stat'",
			       s->events[i]);
			return ret;
		}
		if (ret)
			return ret;
	}
	for (i = 0; i < s->nfilters; i++) {
		ret = kt_decoder_add_filter(d, s->filters[i]);
		if (ret)
			return ret;
	}
	for (i = 0; i < s->npids; i++)
		kt_decoder_add_pid(d, s->pids[i]);
	for (i = 0; i < s->ncomms; i++) {
		ret = kt_decoder_add_comm(d, s->comms[i]);
		if (ret)
			return ret;
	}
	return 0;
}

struct kt_decoder *kt_select_decoder(const struct kt_select *s,
				     struct kt_reader *r)
{
	struct kt_decoder *d;
	int ret;

	d = kt_decoder_new(r, &s->dopts);
	if (!d) {
		ret = errno;
		kt_err("cannot decode '%s': %s", kt_reader_path(r), strerror(ret));
		errno = ret;
		return NULL;
	}
	ret = add_selection(s, d);
	if (ret) {
		kt_decoder_free(d);
		errno = -ret;
		return NULL;
	}
	return d;
}

/* Append " OPT VALUE" to buf, quoting a value with spaces. */
static void put_opt(char *buf, size_t len, const char *opt, const char *val)
{
	size_t n = strlen(buf);
	bool quote = strpbrk(val, " \t'\"") != NULL;

	if (n < len)
		snprintf(buf + n, len - n, "%s%s %s%s%s", n ? " " : "", opt,
			 quote ? "'" : "", val, quote ? "'" : "");
}

void kt_select_describe(const struct kt_select *s, char *buf, size_t len)
{
	char pid[16];
	int i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < s->nevents; i++)
		put_opt(buf, len, "-e", s->events[i]);
	for (i = 0; i < s->nfilters; i++)
		put_opt(buf, len, "-F", s->filters[i]);
	for (i = 0; i < s->npids; i++) {
		snprintf(pid, sizeof(pid), "%d", s->pids[i]);
		put_opt(buf, len, "--pid", pid);
	}
	for (i = 0; i < s->ncomms; i++)
		put_opt(buf, len, "--comm", s->comms[i]);
	if (s->cpu_list)
		put_opt(buf, len, "--cpu", s->cpu_list);
	if (s->from_arg)
		put_opt(buf, len, "--from", s->from_arg);
	if (s->to_arg)
		put_opt(buf, len, "--to", s->to_arg);
}
