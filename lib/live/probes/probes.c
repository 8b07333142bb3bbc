// SPDX-License-Identifier: GPL-2.0
/*
 * A recording's uprobes and kprobes.  See probes.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/log.h"
#include "live/probes/dynevents.h"
#include "live/tracefs/errlog.h"
#include "decode/elfsym.h"
#include "live/tracefs/kfunc.h"
#include "live/probes/probes.h"
#include "live/tracefs/tracefs.h"

#define NAME_MAX_LEN	64

struct probe {
	char name[NAME_MAX_LEN];
	const char *file;		/* uprobe_events or kprobe_events */
};

struct kt_probes {
	char group[32];
	struct probe *v;
	size_t n;
};

static bool is_uprobe(enum kt_probe_kind k)
{
	return k == KT_UPROBE || k == KT_URETPROBE;
}

static const char *option_of(enum kt_probe_kind k)
{
	static const char *const names[] = {
		[KT_UPROBE] = "--uprobe", [KT_URETPROBE] = "--uretprobe",
		[KT_KPROBE] = "--kprobe", [KT_KRETPROBE] = "--kretprobe",
	};

	return names[k];
}

/*
 * The kernel's own reason, from error_log's last entry (live/tracefs/errlog.h):
 * "Invalid fetch argument (at 'ARG')", with the word of the command the
 * kernel gave up at.  "" when there is none.
 */
static void kernel_reason(char *buf, size_t len)
{
	struct kt_errlog e;

	buf[0] = '\0';
	if (kt_errlog_read(NULL, &e))
		return;
	snprintf(buf, len, "%s", e.reason);
	if (*e.word)
		snprintf(buf + strlen(buf), len - strlen(buf), " (at '%s')", e.word);
}

/* "do_execveat_common.isra.0" -> "do_execveat_common_isra_0", unique. */
static void event_name(struct kt_probes *p, const char *sym, const char *suffix,
		       char *out)
{
	char base[NAME_MAX_LEN];
	size_t i, k, dup;

	/* Names longer than the kernel keeps are cut: room for "_ret_9". */
	snprintf(base, sizeof(base) - 8, "%.40s%s", sym, suffix);
	for (i = 0; base[i]; i++)
		if (!isalnum((unsigned char)base[i]) && base[i] != '_')
			base[i] = '_';
	if (isdigit((unsigned char)base[0]))
		base[0] = '_';
	snprintf(out, NAME_MAX_LEN, "%s", base);
	for (dup = 2;; dup++) {
		for (k = 0; k < p->n && strcmp(p->v[k].name, out); k++)
			;
		if (k == p->n)
			return;
		snprintf(out, NAME_MAX_LEN, "%s_%zu", base, dup);
	}
}

/*
 * The probe's target as uprobe_events takes it: "BINARY:SYMBOL[+OFF]"
 * to "/path:0xOFFSET".
 */
static int uprobe_target(const struct kt_probe_spec *s, const char *target,
			 char *sym, size_t symlen, char *out, size_t len)
{
	char what[512], path[4096], hint[128], *colon, *plus;
	unsigned long long add = 0;
	uint64_t off;
	int ret;

	snprintf(what, sizeof(what), "%s", target);
	colon = strrchr(what, ':');
	if (!colon || colon == what || !colon[1]) {
		kt_err("%s '%s': give BINARY:SYMBOL, e.g. %s libc:malloc or %s /bin/bash:readline",
		       option_of(s->kind), s->spec, option_of(s->kind), option_of(s->kind));
		return -EINVAL;
	}
	*colon = '\0';
	plus = strchr(colon + 1, '+');
	if (plus) {
		char *end;

		*plus = '\0';
		errno = 0;
		add = strtoull(plus + 1, &end, 0);
		if (errno || *end || end == plus + 1) {
			kt_err("%s '%s': bad offset '+%s'; give +N or +0xN bytes into the function",
			       option_of(s->kind), s->spec, plus + 1);
			return -EINVAL;
		}
	}
	snprintf(sym, symlen, "%s", colon + 1);
	if (kt_elf_missing()) {
		kt_err("%s '%s': cannot load libelf to find '%s': %s; install libelf1",
		       option_of(s->kind), s->spec, sym, kt_elf_missing());
		return -ELIBACC;
	}
	ret = kt_elf_find(what, path, sizeof(path));
	if (ret) {
		kt_err("%s '%s': no binary or library '%s' (a path, a library such as libc, or a program in PATH)",
		       option_of(s->kind), s->spec, what);
		return ret;
	}
	ret = kt_elf_func_offset(path, sym, &off, hint, sizeof(hint));
	if (ret == -ENOENT && *hint)
		kt_err("no symbol '%s' in %s; did you mean '%s'?", sym, path, hint);
	else if (ret == -ENOENT)
		kt_err("no symbol '%s' in %s; see 'nm -D %s'", sym, path, path);
	else if (ret == -ENOEXEC)
		kt_err("%s '%s': %s is not an ELF file of this machine", option_of(s->kind),
		       s->spec, path);
	else if (ret)
		kt_err("%s '%s': cannot read %s: %s", option_of(s->kind), s->spec, path,
		       strerror(-ret));
	if (ret)
		return ret;
	snprintf(out, len, "%s:0x%" PRIx64, path, off + (uint64_t)add);
	return 0;
}

static int make_one(struct kt_probes *p, const struct kt_probe_spec *s)
{
	char target[512], where[4200], sym[256], cmd[8192], reason[512];
	const char *args, *file = is_uprobe(s->kind) ? "uprobe_events" : "kprobe_events";
	bool ret_probe = s->kind == KT_URETPROBE || s->kind == KT_KRETPROBE;
	struct probe *v;
	size_t n;
	int ret;

	n = strcspn(s->spec, " \t");
	args = s->spec + n + strspn(s->spec + n, " \t");
	snprintf(target, sizeof(target), "%.*s", (int)n, s->spec);
	if (!*target) {
		kt_err("%s needs a target, e.g. %s", option_of(s->kind),
		       is_uprobe(s->kind) ? "libc:malloc" : "do_sys_openat2");
		return -EINVAL;
	}
	if (is_uprobe(s->kind)) {
		ret = uprobe_target(s, target, sym, sizeof(sym), where, sizeof(where));
		if (ret)
			return ret;
	} else {
		char *path = tracefs_get_tracing_file("kprobe_events");
		bool has = path && !access(path, F_OK);

		tracefs_put_tracing_file(path);
		if (!has) {
			kt_err("%s '%s': this kernel has no kprobe_events (CONFIG_KPROBE_EVENTS); uprobes (--uprobe), stacks (-T, --stack) and events work here (see 'ktrace doctor')",
			       option_of(s->kind), s->spec);
			return -ENOTSUP;
		}
		snprintf(sym, sizeof(sym), "%.*s", (int)strcspn(target, "+"), target);
		/* Where kallsyms cannot tell, the kernel's error_log will. */
		if (!kt_kernel_function_known(sym)) {
			kt_err("%s '%s': no kernel function '%s'; see 'ktrace list functions'",
			       option_of(s->kind), s->spec, sym);
			return -ENOENT;
		}
		snprintf(where, sizeof(where), "%s", target);
	}
	v = realloc(p->v, (p->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->v = v;
	event_name(p, sym, ret_probe ? "_ret" : "", v[p->n].name);
	v[p->n].file = file;
	snprintf(cmd, sizeof(cmd), "%c:%s/%s %s%s%s\n", ret_probe ? 'r' : 'p', p->group,
		 v[p->n].name, where, *args ? " " : "", args);
	ret = kt_tracefs_append(NULL, file, cmd);
	if (ret) {
		kernel_reason(reason, sizeof(reason));
		if (*reason)
			kt_err("%s '%s': the kernel refuses it: %s", option_of(s->kind), s->spec,
			       reason);
		else
			kt_err("%s '%s': cannot add it to %s: %s", option_of(s->kind), s->spec,
			       file, strerror(-ret));
		return ret;
	}
	p->n++;
	return 0;
}

struct kt_probes *kt_probes_make(const struct kt_probe_spec *specs, size_t n)
{
	struct kt_probes *p = calloc(1, sizeof(*p));
	size_t i;
	int ret;

	if (!p)
		return NULL;
	snprintf(p->group, sizeof(p->group), "%s%d", KT_DYN_GROUP_PREFIX, (int)getpid());
	for (i = 0; i < n; i++) {
		ret = make_one(p, &specs[i]);
		if (ret) {
			kt_probes_remove(p);
			errno = -ret;
			return NULL;
		}
	}
	return p;
}

const char *kt_probes_group(const struct kt_probes *p)
{
	return p->group;
}

size_t kt_probes_count(const struct kt_probes *p)
{
	return p->n;
}

const char *kt_probes_name(const struct kt_probes *p, size_t i)
{
	return i < p->n ? p->v[i].name : NULL;
}

void kt_probes_remove(struct kt_probes *p)
{
	char cmd[128];
	size_t i;
	int ret;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		snprintf(cmd, sizeof(cmd), "-:%s/%s\n", p->group, p->v[i].name);
		ret = kt_tracefs_append(NULL, p->v[i].file, cmd);
		if (ret && ret != -ENOENT)
			kt_warn("cannot remove the probe '%s/%s': %s; 'ktrace reset -a' removes it",
				p->group, p->v[i].name, strerror(-ret));
	}
	free(p->v);
	free(p);
}
