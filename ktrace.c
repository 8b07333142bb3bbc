// SPDX-License-Identifier: GPL-2.0
/*
 * ktrace: one binary, git-style.  main() and the command table only;
 * every command lives in cmd/<name>.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "base/editdist.h"
#include "base/log.h"

/* What a command always needs; run_cmd() checks it once. */
#define NEED_TRACEFS (1u << 0)

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned int flags;
	const char *help;
};

/* Sorted by name. */
static const struct cmd commands[] = {
	{ "agent",  cmd_agent,  NEED_TRACEFS, "serve recordings of this machine to 'ktrace record --remote'" },
	{ "analyze", cmd_analyze, 0,          "answers from a recording: system calls, scheduling, CPU time, off-CPU time, critical path" },
	{ "diff",   cmd_diff,   0,            "what changed between two recordings: tasks, system calls, off-CPU reasons, interrupts" },
	{ "doctor", cmd_doctor, 0,            "check what tracing will and will not work here" },
	{ "enable", cmd_enable, NEED_TRACEFS, "turn events on or off, with filters" },
	{ "list",   cmd_list,   NEED_TRACEFS, "list events, systems, tracers, options and aliases" },
	{ "push",   cmd_push,   0,            "load recordings into ClickHouse, on sql's schema" },
	{ "record", cmd_record, 0,            "trace a command or the system into a trace.dat file, here or on an agent" },
	{ "report", cmd_report, 0,            "decode a trace.dat file into text or JSON" },
	{ "reset",  cmd_reset,  NEED_TRACEFS, "return tracing to a clean state" },
	{ "snapshot", cmd_snapshot, 0,        "write a whole file of a running recording, which goes on" },
	{ "sql",    cmd_sql,    0,            "SQL over a recording, on SQLite: no server" },
	{ "stat",   cmd_stat,   0,            "show tracing state and lost events, live or of a file" },
	{ "stream", cmd_stream, NEED_TRACEFS, "trace and print events as they happen, no file" },
	{ "top",    cmd_top,    NEED_TRACEFS, "live event rates, full screen" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: ktrace [--version] [--help] <command> [<args>]\n\n"
		     "commands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "   %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n'ktrace help <command>' or 'ktrace <command> --help' for more.\n");
}

/*
 * Flush and close stdout so a full disk or a closed pipe is noticed;
 * a reader that went away (| head) is not an error.
 */
static int close_stdout(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (errno == EPIPE)
			return status;
		fprintf(stderr, "ktrace: cannot write output: %s\n",
			strerror(errno));
		return status ? status : KT_EXIT_FAIL;
	}
	return status;
}

static int run_cmd(const struct cmd *c, int argc, char **argv)
{
	char prog[64];
	int i, status;

	snprintf(prog, sizeof(prog), "ktrace %s", c->name);
	kt_log_set_prog(prog);
	argv[0] = prog;
	/* --help, --usage and --list-opts work without tracefs. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-?") ||
		    !strcmp(argv[i], "--usage") || !strcmp(argv[i], "--list-opts"))
			goto run;
	if (c->flags & NEED_TRACEFS) {
		status = need_tracefs();
		if (status)
			return status;
	}
run:
	return c->fn(argc, argv);
}

/* ktrace-<name> on PATH runs as ktrace <name>, as git does. */
static void try_external(int argc, char **argv)
{
	char name[PATH_MAX];

	(void)argc;
	snprintf(name, sizeof(name), "ktrace-%s", argv[0]);
	argv[0] = name;
	execvp(name, argv);
}

static int unknown_cmd(const char *name)
{
	size_t i, best = (size_t)-1, d;
	const char *hint = NULL;

	for (i = 0; i < NCOMMANDS; i++) {
		d = kt_edit_distance(name, commands[i].name);
		if (d < best) {
			best = d;
			hint = commands[i].name;
		}
	}
	if (hint && best <= 2)
		fprintf(stderr, "ktrace: '%s' is not a ktrace command. Did you mean '%s'?\n",
			name, hint);
	else
		fprintf(stderr, "ktrace: '%s' is not a ktrace command. See 'ktrace --help'.\n",
			name);
	return KT_EXIT_FAIL;
}

/* Run man on page; true when it showed it. */
static bool show_man(const char *page, bool local_file)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		/* man's own "no manual entry" is noise when we fall back. */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		if (local_file)
			execlp("man", "man", "-l", page, (char *)NULL);
		else
			execlp("man", "man", page, (char *)NULL);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

/*
 * The page beside an in-tree binary (./ktrace, or build/asan/ktrace of
 * the same tree): it matches that binary better than an installed one.
 */
static bool find_local_man(const char *name, char *path, size_t len)
{
	static const char *const up[] = { "", "/..", "/../.." };
	char exe[PATH_MAX];
	const char *dir;
	ssize_t n;
	size_t i;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	dir = dirname(exe);
	for (i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
		snprintf(path, len, "%s%s/man/ktrace-%s.1", dir, up[i], name);
		if (access(path, R_OK) == 0)
			return true;
	}
	return false;
}

static int help_cmd(int argc, char **argv)
{
	const struct cmd *c;
	char page[PATH_MAX + 64];
	char *fallback[] = { NULL, "--help", NULL };
	bool shown;

	if (argc < 2) {
		usage(stdout);
		return KT_EXIT_OK;
	}
	c = find_cmd(argv[1]);
	if (!c)
		return unknown_cmd(argv[1]);
	/* The local page, else the installed one, else --help. */
	if (find_local_man(c->name, page, sizeof(page))) {
		shown = show_man(page, true);
	} else {
		snprintf(page, sizeof(page), "ktrace-%s", c->name);
		shown = show_man(page, false);
	}
	if (shown)
		return KT_EXIT_OK;
	fallback[0] = (char *)c->name;
	return run_cmd(c, 2, fallback);
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	const char *name;

	/* A closed pipe must surface as EPIPE, not kill us mid-cleanup. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return close_stdout(KT_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("ktrace version %s\n", KTRACE_VERSION);
		return close_stdout(KT_EXIT_OK);
	}
	if (!strcmp(argv[1], "help"))
		return close_stdout(help_cmd(argc - 1, argv + 1));
	if (argv[1][0] == '-') {
		fprintf(stderr, "ktrace: unknown option '%s'\n", argv[1]);
		usage(stderr);
		return KT_EXIT_USAGE;
	}
	name = argv[1];
	c = find_cmd(name);
	if (c)
		return close_stdout(run_cmd(c, argc - 1, argv + 1));
	try_external(argc - 1, argv + 1);
	return unknown_cmd(name);
}
