// SPDX-License-Identifier: GPL-2.0
/*
 * The options `ktrace record` and `ktrace stream` share, parsed with
 * argp into struct kt_trace_opts.  See util-session-opts.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util-session-opts.h"

int parse_ulong(const char *s, unsigned long long max,
		unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

error_t trace_opt(struct kt_trace_opts *o, int key, char *arg,
		  struct argp_state *state)
{
	unsigned long long v;
	struct kt_evspec *sp;
	pid_t *pids;

	switch (key) {
	case 'e':
		sp = realloc(o->specs, (o->nspecs + 1) * sizeof(*sp));
		if (!sp)
			argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-e");
		o->specs = sp;
		sp[o->nspecs].spec = arg;
		sp[o->nspecs].filter = NULL;
		sp[o->nspecs].stack = false;
		o->nspecs++;
		return 0;
	case 'f':
		if (!o->nspecs)
			argp_error(state, "-f '%s' must follow the -e it filters", arg);
		if (o->specs[o->nspecs - 1].filter)
			argp_error(state, "only one -f per -e ('%s')",
				   o->specs[o->nspecs - 1].spec);
		o->specs[o->nspecs - 1].filter = arg;
		return 0;
	case 'b':
		if (parse_ulong(arg, 64ULL << 20, &v) || !v)
			argp_error(state, "bad buffer size '%s'; give KB per CPU, e.g. -b 8192", arg);
		o->buffer_kb = v;
		return 0;
	case 'p':
		if (!arg || arg[strspn(arg, "0123456789")])
			return ARGP_ERR_UNKNOWN;
		/* a number is a pid */
		__attribute__((fallthrough));
	case 'P':
		if (parse_ulong(arg, INT32_MAX, &v) || !v)
			argp_error(state, "bad pid '%s'", arg);
		pids = realloc(o->pids, (o->npids + 1) * sizeof(*pids));
		if (!pids)
			argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-p");
		o->pids = pids;
		o->pids[o->npids++] = v;
		return 0;
	case 'F':
		o->only_cmd = true;
		return 0;
	case 'c':
		o->children = true;
		return 0;
	case KT_OPT_TRACE_SELF:
		o->trace_self = true;
		return 0;
	case ARGP_KEY_END:
		if (o->only_cmd && !o->cmd)
			argp_error(state, "-F needs a COMMAND");
		if (o->children && !o->cmd && !o->npids)
			argp_error(state, "-c needs a COMMAND or -P PID");
		if (o->only_cmd && o->npids)
			argp_error(state, "-F and -P conflict; -F traces only COMMAND");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

void trace_opts_free(struct kt_trace_opts *o)
{
	free(o->specs);
	free(o->probes);
	free(o->pids);
	free(o->ft.filter);
	free(o->ft.notrace);
	free(o->ft.graph_funcs);
	o->ft.filter = o->ft.notrace = o->ft.graph_funcs = NULL;
	o->specs = NULL;
	o->pids = NULL;
	o->probes = NULL;
}

/* An argument in the next word: one that is not optional (those come after '='). */
static bool next_word_arg(const struct argp_option *op)
{
	return op->arg && !(op->flags & OPTION_ARG_OPTIONAL);
}

/* Does the option named by arg (without dashes) take the next word? */
static bool long_takes_arg(const struct argp_option *options,
			   const char *name, size_t len)
{
	const struct argp_option *op;

	for (op = options; op->name || op->key || op->doc; op++)
		if (op->name && !strncmp(op->name, name, len) && next_word_arg(op))
			return true;
	return false;
}

static bool short_takes_arg(const struct argp_option *options, int c)
{
	const struct argp_option *op;

	for (op = options; op->name || op->key || op->doc; op++)
		if (op->key == c)
			return next_word_arg(op);
	return false;
}

/*
 * Everything from COMMAND on belongs to the command, even words that
 * look like our options.
 */
int split_command(const struct argp_option *options, int argc,
		  char **argv, struct kt_trace_opts *o)
{
	bool dashdash = false;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			dashdash = true;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');

			if (!eq && long_takes_arg(options, a + 2, strlen(a + 2)))
				i++;
			continue;
		}
		for (a++; *a; a++) {
			if (short_takes_arg(options, *a)) {
				if (!a[1])
					i++;
				break;
			}
		}
	}
	if (i > argc)
		i = argc;
	if (i < argc && argv[i + (dashdash ? 1 : 0)])
		o->cmd = argv + i + (dashdash ? 1 : 0);
	return i;
}
