// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers every subcommand shares: option parsing, the tracefs
 * precondition and the backend choice.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "base/log.h"
#include "decode/hosts.h"
#include "file/reader.h"
#include "file/pack.h"
#include "live/events/evhome.h"
#include "live/tracefs/tracefs.h"
#include "live/module/module.h"
#include "net/auth.h"

static void list_options(const struct argp *argp)
{
	const struct argp_option *o;
	const struct argp_child *c;

	for (o = argp->options; o && (o->name || o->key || o->doc); o++) {
		if (o->flags & (OPTION_HIDDEN | OPTION_DOC))
			continue;
		if (o->name)
			printf("--%s\n", o->name);
		if (o->key > 0 && o->key < 128 && isprint(o->key))
			printf("-%c\n", o->key);
	}
	for (c = argp->children; c && c->argp; c++)
		list_options(c->argp);
}

int parse_args(const struct argp *argp, int argc, char **argv,
	       void *input)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--list-opts")) {
			list_options(argp);
			printf("--help\n--usage\n");
			return 1;
		}
	}
	argp_parse(argp, argc, argv, 0, NULL, input);
	return 0;
}

int need_tracefs(void)
{
	const char *dir = NULL;
	int ret = kt_tracefs_open(&dir);

	switch (ret) {
	case 0:
		return KT_EXIT_OK;
	case -EACCES:
		kt_err("cannot write tracefs: Permission denied; run as root (or with CAP_SYS_ADMIN and write access to /sys/kernel/tracing)");
		break;
	case -ENODEV:
		kt_err("tracefs is not available and could not be mounted; try: mount -t tracefs nodev /sys/kernel/tracing");
		break;
	default:
		kt_err("cannot open tracefs: %s", strerror(-ret));
	}
	return KT_EXIT_FAIL;
}

int instance_arg_lookup(const char *name, struct tracefs_instance **out)
{
	/* -B "" must not quietly mean the top-level buffer. */
	int ret = name && !*name ? -EINVAL : kt_instance_lookup(name, out);

	return kt_instance_explain(name, ret) ? KT_EXIT_FAIL : KT_EXIT_OK;
}

void backend_option(struct argp_state *state, const char *arg)
{
	enum kt_backend b;

	if (kt_backend_parse(arg, &b))
		argp_error(state, "unknown backend '%s'; give 'ftrace' or 'module'", arg);
	kt_events_set_backend(b);
}

int need_backend(void)
{
	if (!kt_backend_check())
		return KT_EXIT_OK;
	kt_err("--backend module needs ktrace.ko, which is not loaded; %s",
	       KT_MODULE_LOAD_HINT);
	return KT_EXIT_FAIL;
}

int parse_file_version(struct argp_state *state, const char *arg)
{
	if (strcmp(arg, "6") && strcmp(arg, "7"))
		argp_error(state, "bad file version '%s'; use 6 or 7", arg);
	return *arg - '0';
}

const char *parse_compression(struct argp_state *state, const char *arg)
{
	if (!kt_pack_known(arg))
		argp_error(state, "unknown compression '%s'; use zstd, zlib or none", arg);
	return arg;
}

void check_file_format(struct argp_state *state, int version,
		       const char *compression)
{
	if (version == 6 && compression && strcmp(compression, "none"))
		argp_error(state, "--file-version 6 has no compression; use --file-version 7 for --compression %s, or drop --compression",
			   compression);
}

void input_add(struct argp_state *state, struct input_list *in, const char *arg)
{
	const char **v = realloc(in->paths, sizeof(*v) * (size_t)(in->n + 1));

	if (!v)
		argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-i");
	in->paths = v;
	in->paths[in->n++] = arg;
}

const char *input_done(struct argp_state *state, struct input_list *in)
{
	size_t len = 0;
	int i;

	if (!in->n)
		input_add(state, in, "ktrace.dat");
	for (i = 0; i < in->n; i++)
		len += strlen(in->paths[i]) + 2;
	in->name = malloc(len);
	if (!in->name)
		argp_failure(state, KT_EXIT_FAIL, ENOMEM, "-i");
	*in->name = '\0';
	for (i = 0; i < in->n; i++) {
		if (i)
			strcat(in->name, ", ");
		strcat(in->name, in->paths[i]);
	}
	return in->name;
}

bool hosts_open(const struct input_list *in, struct kt_reader **rs)
{
	char a[256], b[256];
	const char *first = NULL, *name;
	bool hosts = false;
	int i;

	struct stat st;

	if (in->n < 2)
		return false;
	/* A directory is a series' chunks; a missing file is said by the caller. */
	for (i = 0; i < in->n; i++)
		if (stat(in->paths[i], &st) || !S_ISREG(st.st_mode))
			return false;
	for (i = 0; i < in->n; i++) {
		rs[i] = kt_reader_open(in->paths[i]);
		if (!rs[i])
			goto no;
		name = kt_hosts_stored_name(rs[i], i ? b : a, sizeof(a));
		if (kt_hosts_is_remote(rs[i]))
			hosts = true;
		if (!i)
			first = name;
		else if (!first != !name || (first && strcmp(first, name)))
			hosts = true;
	}
	if (hosts)
		return true;
no:
	while (i-- > 0)
		kt_reader_close(rs[i]);
	return false;
}

bool hosts_given(const struct input_list *in)
{
	struct kt_reader **rs = in->n > 1 ? calloc((size_t)in->n, sizeof(*rs)) : NULL;
	bool hosts = rs && hosts_open(in, rs);
	int i;

	for (i = 0; hosts && i < in->n; i++)
		kt_reader_close(rs[i]);
	free(rs);
	return hosts;
}

void input_free(struct input_list *in)
{
	free(in->paths);
	free(in->name);
	in->paths = NULL;
	in->name = NULL;
	in->n = 0;
}

long parse_top(struct argp_state *state, const char *arg)
{
	char *end;
	long top;

	errno = 0;
	top = strtol(arg, &end, 10);
	if (errno || *end || end == arg || top < 1)
		argp_error(state, "bad --top '%s'; give a number of rows", arg);
	return top;
}

int parse_size_duration(const char *arg, unsigned long long *size,
			unsigned long long *ns)
{
	static const struct {
		const char *suffix;
		unsigned long long bytes, ns;
	} units[] = {
		{ "K", 1ULL << 10, 0 }, { "k", 1ULL << 10, 0 }, { "KB", 1ULL << 10, 0 },
		{ "KiB", 1ULL << 10, 0 }, { "M", 1ULL << 20, 0 }, { "MB", 1ULL << 20, 0 },
		{ "MiB", 1ULL << 20, 0 }, { "G", 1ULL << 30, 0 }, { "GB", 1ULL << 30, 0 },
		{ "GiB", 1ULL << 30, 0 },
		{ "ms", 0, 1000000ULL }, { "s", 0, 1000000000ULL },
		{ "m", 0, 60000000000ULL }, { "h", 0, 3600000000000ULL },
	};
	unsigned long long v;
	char *end;
	size_t i;

	if (*arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		unsigned long long unit = units[i].bytes ? units[i].bytes : units[i].ns;

		if (strcmp(end, units[i].suffix))
			continue;
		if (v > UINT64_MAX / unit)
			return -EINVAL;
		*size = units[i].bytes ? v * unit : 0;
		*ns = units[i].ns ? v * unit : 0;
		return 0;
	}
	return -EINVAL;
}

int token_load(const char *path, unsigned char *key)
{
	int ret = kt_auth_load(path, key);

	/* A libsodium that does not load is said where it is loaded. */
	if (ret && ret != -ELIBACC)
		kt_err("cannot read the token in '%s': %s", path,
		       ret == -EPERM ? "others may read it; chmod 600 it" :
		       ret == -EINVAL ? "it is empty" : strerror(-ret));
	return ret;
}
