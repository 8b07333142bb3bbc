// SPDX-License-Identifier: GPL-2.0
/*
 * A trigger's condition: its grammar (cond.h), the suggestions for a
 * bad one (base/editdist), the events it needs and its name in a file
 * name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/editdist.h"
#include "decode/symbols.h"
#include "live/trigger/cond.h"

/* System call numbers looked up by name go this far. */
#define SYSCALL_MAX	1024

static const char *const kinds[] = { "syscall", "exit", "event", "wakeup", "offcpu" };

static const char *const syscall_events[] = {
	"raw_syscalls:sys_enter", "raw_syscalls:sys_exit", NULL,
};

/*
 * A wakeup: sched_waking where the wakeup begins (sched_wakeup, at its
 * end, is not needed then), sched_wakeup_new for a new task (it has no
 * sched_waking), and the switch that puts the task on a CPU.
 */
static const char *const wakeup_events[] = {
	"sched:sched_switch", "sched:sched_waking", "sched:sched_wakeup_new", NULL,
};

static const char *const offcpu_events[] = { "sched:sched_switch", NULL };

static const char *const no_events[] = { NULL };

static const struct {
	const char *unit;
	uint64_t ns;
} units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	{ "m", 60000000000ULL }, { "h", 3600000000000ULL },
};

/* The closest of names[n] to word within a typo's distance, or NULL. */
static const char *closest(const char *word, const char *const *names, size_t n)
{
	size_t i, d, best = (size_t)-1;
	const char *pick = NULL;

	for (i = 0; i < n; i++) {
		d = kt_edit_distance(word, names[i]);
		if (d < best) {
			best = d;
			pick = names[i];
		}
	}
	return best <= 2 && best < strlen(word) ? pick : NULL;
}

int kt_cond_duration(const char *text, uint64_t *ns, char *why, size_t len)
{
	unsigned long long v;
	char *end;
	size_t i;

	if (*text >= '0' && *text <= '9') {
		errno = 0;
		v = strtoull(text, &end, 10);
		for (i = 0; !errno && i < sizeof(units) / sizeof(units[0]); i++) {
			if (strcmp(end, units[i].unit))
				continue;
			if (v > UINT64_MAX / units[i].ns)
				break;
			*ns = v * units[i].ns;
			if (*ns)
				return 0;
			snprintf(why, len, "duration '%s' is zero; give one above it, e.g. 50ms",
				 text);
			return -EINVAL;
		}
		if (!errno && end != text && !*end) {
			snprintf(why, len, "duration '%s' has no unit; e.g. %sms (ns, us, ms, s, m, h)",
				 text, text);
			return -EINVAL;
		}
	}
	snprintf(why, len, "'%s' is not a duration; give a number and a unit, e.g. 50ms (ns, us, ms, s, m, h)",
		 text);
	return -EINVAL;
}

/* The number of system call name, or -1 (*hint: the closest name). */
static long syscall_nr(const char *name, const char **hint)
{
	const char *machine = NULL, *n, *pick = NULL;
	size_t d, best = (size_t)-1;
	struct utsname u;
	int nargs;
	long nr;

	if (!uname(&u))
		machine = u.machine;
	for (nr = 0; nr < SYSCALL_MAX; nr++) {
		n = kt_syscall_name(machine, nr, &nargs);
		if (!n)
			continue;
		if (!strcmp(n, name))
			return nr;
		d = kt_edit_distance(name, n);
		if (d < best) {
			best = d;
			pick = n;
		}
	}
	*hint = best <= 2 ? pick : NULL;
	return -1;
}

static int parse_syscall(const char *rest, struct kt_cond *c, char *why,
			 size_t len)
{
	const char *gt = strchr(rest, '>'), *hint = NULL;
	char name[64];
	size_t n;

	c->kind = KT_COND_SYSCALL;
	c->nr = -1;
	if (!gt) {
		snprintf(why, len, "no '>DURATION'; e.g. 'syscall>50ms' or 'syscall:fsync>20ms'");
		return -EINVAL;
	}
	if (*rest == ':') {
		n = gt - rest - 1;
		if (!n || n >= sizeof(name)) {
			snprintf(why, len, "no system call name after 'syscall:'; e.g. 'syscall:fsync>20ms'");
			return -EINVAL;
		}
		memcpy(name, rest + 1, n);
		name[n] = '\0';
		c->nr = syscall_nr(name, &hint);
		if (c->nr < 0) {
			if (hint)
				snprintf(why, len, "unknown system call '%s'; did you mean '%s'?",
					 name, hint);
			else
				snprintf(why, len, "unknown system call '%s'; 'ktrace list syscalls' names them",
					 name);
			return -EINVAL;
		}
	} else if (gt != rest) {
		snprintf(why, len, "unexpected '%.*s' after 'syscall'; give 'syscall>DUR' or 'syscall:NAME>DUR'",
			 (int)(gt - rest), rest);
		return -EINVAL;
	}
	return kt_cond_duration(gt + 1, &c->ns, why, len);
}

/* ">DUR" after "wakeup" or "offcpu". */
static int parse_wait(const char *word, const char *rest, enum kt_cond_kind kind,
		      struct kt_cond *c, char *why, size_t len)
{
	c->kind = kind;
	c->nr = -1;
	if (*rest != '>') {
		if (*rest)
			snprintf(why, len, "unexpected '%s' after '%s'; give '%s>DUR', e.g. '%s>20ms'",
				 rest, word, word, word);
		else
			snprintf(why, len, "no '>DURATION'; e.g. '%s>20ms'", word);
		return -EINVAL;
	}
	if (!rest[1]) {
		snprintf(why, len, "no duration after '%s>'; e.g. '%s>20ms'", word, word);
		return -EINVAL;
	}
	return kt_cond_duration(rest + 1, &c->ns, why, len);
}

/* "event SYS:EVENT [if FILTER]" after "event". */
static int parse_event(const char *rest, struct kt_cond *c, char *why,
		       size_t len)
{
	size_t n;

	c->kind = KT_COND_EVENT;
	while (*rest == ' ')
		rest++;
	n = strcspn(rest, " ");
	if (!n || n >= sizeof(c->spec) || !memchr(rest, ':', n)) {
		snprintf(why, len, "give the event as SYSTEM:EVENT, e.g. 'event signal:signal_generate if sig == 11'");
		return -EINVAL;
	}
	memcpy(c->spec, rest, n);
	c->spec[n] = '\0';
	c->events[0] = c->spec;
	rest += n;
	while (*rest == ' ')
		rest++;
	if (!*rest)
		return 0;
	if (strncmp(rest, "if ", 3)) {
		snprintf(why, len, "unexpected '%s' after '%s'; give 'event %s if FILTER'",
			 rest, c->spec, c->spec);
		return -EINVAL;
	}
	c->filter = rest + 3;
	while (*c->filter == ' ')
		c->filter++;
	if (*c->filter)
		return 0;
	snprintf(why, len, "no FILTER after 'if'; e.g. 'event %s if pid == 1'", c->spec);
	return -EINVAL;
}

int kt_cond_parse(const char *text, struct kt_cond *c, char *why, size_t len)
{
	const char *hint;
	char word[32];
	size_t n;

	memset(c, 0, sizeof(*c));
	c->text = text;
	while (*text == ' ')
		text++;
	n = strcspn(text, ":> ");
	if (n == 7 && !strncmp(text, "syscall", 7))
		return parse_syscall(text + 7, c, why, len);
	if (n == 6 && !strncmp(text, "wakeup", 6))
		return parse_wait("wakeup", text + 6, KT_COND_WAKEUP, c, why, len);
	if (n == 6 && !strncmp(text, "offcpu", 6))
		return parse_wait("offcpu", text + 6, KT_COND_OFFCPU, c, why, len);
	if (n == 5 && !strncmp(text, "event", 5) && text[5] == ' ')
		return parse_event(text + 5, c, why, len);
	if (n == 4 && !strncmp(text, "exit", 4)) {
		c->kind = KT_COND_EXIT;
		if (!text[4])
			return 0;
		snprintf(why, len, "unexpected '%s' after 'exit'; it takes nothing", text + 4);
		return -EINVAL;
	}
	if (!n) {
		snprintf(why, len, "no condition; e.g. 'syscall>50ms'");
		return -EINVAL;
	}
	snprintf(word, sizeof(word), "%.*s", (int)n, text);
	hint = closest(word, kinds, sizeof(kinds) / sizeof(kinds[0]));
	if (hint)
		snprintf(why, len, "unknown condition '%s'; did you mean '%s'?", word, hint);
	else
		snprintf(why, len, "unknown condition '%s'; give syscall>DUR, syscall:NAME>DUR, wakeup>DUR, offcpu>DUR, exit or event SYSTEM:EVENT [if FILTER]",
			 word);
	return -EINVAL;
}

const char *const *kt_cond_events(const struct kt_cond *c)
{
	switch (c->kind) {
	case KT_COND_EVENT:
		return c->events;
	case KT_COND_SYSCALL:
		return syscall_events;
	case KT_COND_WAKEUP:
		return wakeup_events;
	case KT_COND_OFFCPU:
		return offcpu_events;
	default:
		return no_events;
	}
}

char *kt_cond_slug(const struct kt_cond *c, char *buf, size_t len)
{
	const char *p;
	size_t n = 0;

	for (p = c->text; *p && n + 5 < len; p++) {
		if (*p == '>') {
			memcpy(buf + n, "-gt-", 4);
			n += 4;
		} else if (*p == '<') {
			memcpy(buf + n, "-lt-", 4);
			n += 4;
		} else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			   (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' ||
			   (*p == '.' && n)) {
			buf[n++] = *p;
		} else if (n && buf[n - 1] != '_') {
			buf[n++] = '_';
		}
	}
	while (n && buf[n - 1] == '_')
		n--;
	buf[n] = '\0';
	return buf;
}
