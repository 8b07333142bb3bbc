// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace push: recordings into ClickHouse, on ktrace sql's schema
 * (lib/push/push.c), so that a fleet's traces answer one query.  The
 * password comes from the environment or a file, never the command line
 * (where ps shows it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "base/human.h"
#include "base/log.h"
#include "push/clickhouse.h"
#include "push/push.h"

enum {
	OPT_TO = 256,
	OPT_USER,
	OPT_PASSWORD_FILE,
	OPT_HOST,
	OPT_BATCH,
};

struct push_opts {
	const char **inputs;
	int ninputs;
	const char *to;
	const char *user;
	const char *password_file;
	const char *host;
	size_t batch;
	bool quiet;
};

static const struct argp_option options[] = {
	{ "input", 'i', "FILE|DIR", 0, "push FILE (default ktrace.dat), or the chunks in DIR (record --rotate's) as one trace; repeatable, each a trace of its own", 0 },
	{ "to", OPT_TO, "URL", 0, "the ClickHouse server: http://HOST:PORT[/DATABASE] (required)", 0 },
	{ "user", OPT_USER, "NAME", 0, "ClickHouse user (default: the server's default user)", 0 },
	{ "password-file", OPT_PASSWORD_FILE, "FILE", 0, "read the password from FILE's first line (else $KTRACE_PUSH_PASSWORD)", 0 },
	{ "host", OPT_HOST, "NAME", 0, "the host the traces are of (default: the one each file names)", 0 },
	{ "batch", OPT_BATCH, "ROWS", 0, "rows per INSERT and table (default 1048576)", 0 },
	{ "quiet", 'q', NULL, 0, "no progress bar and no summary", 0 },
	{ 0 }
};

static const char args_doc[] = "--to URL";
static const char doc[] =
	"Load recordings into ClickHouse, on ktrace sql's schema.\v"
	"The tables are made when missing (MergeTree, ordered by host, trace_id, "
	"ts): one per event kind, events (a view over those), tasks, losses, and "
	"traces, a row per pushed file, written last.  Every row has host, "
	"trace_id (a UInt64 from the file's contents) and boot_id (a UUID), and "
	"wall_ts, the realtime of ts (NULL "
	"when the file has no realtime offsets).  A file pushed already sends "
	"nothing; an interrupted push is completed by running it again.  The "
	"password comes from --password-file or $KTRACE_PUSH_PASSWORD.  Exit "
	"status: 0 ok, 1 failure, 2 damaged input file, 64 usage.";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct push_opts *o = state->input;
	const char **v;
	char *end;

	switch (key) {
	case 'i':
		v = realloc(o->inputs, (size_t)(o->ninputs + 1) * sizeof(*v));
		if (!v)
			argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-i");
		o->inputs = v;
		o->inputs[o->ninputs++] = arg;
		break;
	case OPT_TO: o->to = arg; break;
	case OPT_USER: o->user = arg; break;
	case OPT_PASSWORD_FILE: o->password_file = arg; break;
	case OPT_HOST: o->host = arg; break;
	case OPT_BATCH:
		errno = 0;
		o->batch = strtoul(arg, &end, 10);
		if (errno || *end || !o->batch)
			argp_error(state, "bad --batch '%s'; give a number of rows above 0", arg);
		break;
	case 'q': o->quiet = true; break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'; name files with -i", arg);
		break;
	case ARGP_KEY_END:
		if (!o->to)
			argp_error(state, "--to URL is required (http://HOST:PORT[/DATABASE])");
		else if (strncmp(o->to, "http://", 7) || !o->to[7])
			argp_error(state, "bad --to '%s'; give http://HOST:PORT[/DATABASE]", o->to);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

/* The password: --password-file's first line, or the environment's. */
static int read_password(const struct push_opts *o, char **pw)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	*pw = NULL;
	if (!o->password_file) {
		const char *env = getenv("KTRACE_PUSH_PASSWORD");

		if (env) {
			*pw = strdup(env);
			return *pw ? 0 : -ENOMEM;
		}
		return 0;
	}
	f = fopen(o->password_file, "r");
	if (!f) {
		kt_err("cannot read '%s': %s", o->password_file, strerror(errno));
		return -errno;
	}
	n = getline(&line, &cap, f);
	fclose(f);
	if (n < 0) {
		free(line);
		line = strdup("");
		if (!line)
			return -ENOMEM;
	}
	line[strcspn(line, "\r\n")] = '\0';
	*pw = line;
	return 0;
}

/* The bar: a terminal only, redrawn in place on stderr. */
static void progress(void *arg, const char *path, const struct kt_push_stats *st)
{
	const struct timespec *t0 = arg;
	struct timespec t;
	double s, frac = st->total ? (double)st->events / (double)st->total : 0;
	char b[32], bar[31];
	int i, w = (int)(frac * 30);

	clock_gettime(CLOCK_MONOTONIC, &t);
	s = (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
	for (i = 0; i < 30; i++)
		bar[i] = i < w ? '#' : '.';
	bar[30] = '\0';
	kt_human_bytes(st->bytes, b, sizeof(b));
	fprintf(stderr, "\r%s [%s] %llu events, %s sent, %.1f s ", path, bar, st->events, b, s);
	fflush(stderr);
}

/* "a.dat, b.dat" of the files pushed so far, or "none". */
static void complete_list(const struct push_opts *o, const bool *done, char *buf, size_t len)
{
	size_t at = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; i < o->ninputs; i++) {
		if (!done[i])
			continue;
		n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", o->inputs[i]);
		if (n < 0 || (size_t)n >= len - at)
			break;
		at += (size_t)n;
	}
	if (!at)
		snprintf(buf, len, "none");
}

static int push(const struct push_opts *o)
{
	struct kt_push_stats st;
	struct kt_push_opts po = { .host = o->host, .batch = o->batch };
	struct timespec t0, t1;
	struct kt_ch *ch;
	bool tty = !o->quiet && isatty(STDERR_FILENO), *done;
	char *pw = NULL, msg[1024], list[1024], b[32];
	double s;
	int i, ret = 0, status = KT_EXIT_OK;

	if (read_password(o, &pw))
		return KT_EXIT_FAIL;
	ch = kt_ch_new(o->to, o->user, pw);
	free(pw);
	done = calloc((size_t)o->ninputs, sizeof(*done));
	if (!ch || !done) {
		kt_err("cannot use '%s': %s", o->to, strerror(errno));
		kt_ch_free(ch);
		free(done);
		return KT_EXIT_FAIL;
	}
	if (tty) {
		po.progress = progress;
		po.arg = &t0;
	}
	for (i = 0; i < o->ninputs; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = kt_push_file(ch, o->inputs[i], &po, &st, msg, sizeof(msg));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (tty)
			fputc('\n', stderr);
		if (ret == 2) {
			kt_err("'%s' is damaged: pushed what could be read, as trace %s", o->inputs[i],
			       st.trace_id);
			status = KT_EXIT_DAMAGED;
			done[i] = true;
			continue;
		}
		if (ret < 0) {
			complete_list(o, done, list, sizeof(list));
			kt_err("cannot push '%s' to %s: %s; complete: %s", o->inputs[i],
			       kt_ch_server(ch), *msg ? msg : ret == -EBADMSG ?
			       "the file is damaged (above)" : strerror(-ret), list);
			status = ret == -EBADMSG ? KT_EXIT_DAMAGED : KT_EXIT_FAIL;
			break;
		}
		done[i] = true;
		if (ret == 1) {
			if (!o->quiet)
				printf("%s: trace %s of host %s is there already: nothing sent\n",
				       o->inputs[i], st.trace_id, st.host);
			continue;
		}
		if (st.no_wall)
			kt_warn("'%s' has no realtime offsets (an older or foreign file): its wall_ts is NULL",
				o->inputs[i]);
		if (st.resumed && !o->quiet)
			printf("%s: deleted the rows of an interrupted push first\n", o->inputs[i]);
		if (o->quiet)
			continue;
		s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		kt_human_bytes(st.bytes, b, sizeof(b));
		printf("%s: pushed as host %s, trace %s: %llu events, %s, %.0f events/s, %u tables\n",
		       o->inputs[i], st.host, st.trace_id, st.events, b,
		       s > 0 ? (double)st.events / s : 0.0, st.tables);
	}
	kt_ch_free(ch);
	free(done);
	return status;
}

int cmd_push(int argc, char **argv)
{
	struct push_opts o = { 0 };
	static const char *def[] = { "ktrace.dat" };
	int ret;

	if (parse_args(&argp, argc, argv, &o)) {
		free(o.inputs);
		return KT_EXIT_OK;
	}
	if (!o.ninputs) {
		o.inputs = (const char **)def;
		o.ninputs = 1;
		ret = push(&o);
		return ret;
	}
	ret = push(&o);
	free(o.inputs);
	return ret;
}
