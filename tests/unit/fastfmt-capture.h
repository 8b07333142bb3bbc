/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live events for the report formatter's identity check and benchmark:
 * record a workload into a private tracefs instance and keep the raw
 * records in memory, with a tep that knows kallsyms, printk formats,
 * saved cmdlines and libtraceevent's plugins (as a report's would).
 */
#ifndef KT_FASTFMT_CAPTURE_H
#define KT_FASTFMT_CAPTURE_H

#include <stdbool.h>

#include <event-parse.h>

struct cap_rec {
	int cpu;
	int size;
	unsigned long long ts;
	unsigned char *data;	/* exactly size bytes */
};

struct capture {
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	struct cap_rec *recs;
	size_t nrecs, cap;
	size_t max;		/* stop keeping records beyond this */
	bool stacks;		/* the instance's stacktrace option: kernel_stack records */
};

/*
 * Enable the systems (NULL-terminated "sys" or "sys:event") in instance
 * `name` (created, removed again), run argv, and read what it traced.
 * Returns 0 or -1 with a message on stderr.
 */
int capture_run(struct capture *cap, const char *name, const char **systems,
		size_t buffer_kb, char **argv);
void capture_free(struct capture *cap);
/*
 * Another tep like the capture's (formats, plugins, kallsyms, printk
 * formats, and the saved cmdlines of the moment).
 */
struct tep_handle *capture_new_tep(struct tep_plugin_list **plugins);
/* A tep_record view of a captured record. */
void capture_record(const struct cap_rec *cr, struct tep_record *rec);

#endif
