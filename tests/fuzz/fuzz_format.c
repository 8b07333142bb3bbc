// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: an event format file's text, as
 * /sys/kernel/tracing/events/SYSTEM/EVENT/format gives it and as a
 * trace.dat stores it, optionally followed by a NUL, a flags byte and the
 * payload of records of that event:
 *   FORMAT-TEXT [ '\0' FLAGS PAYLOAD ]
 * FLAGS bit 0: the event is one of the ftrace system's (whose formats
 * libtraceevent reads in its own way), else of a system "fuzz".
 * The text goes through both ways ktrace parses formats:
 *   - kt_event_format_parse() (lib/live/events/evformat.c, 'ktrace list --fields'):
 *     the check in lib/file/tepcheck.c, tep_parse_format, the field list;
 *   - a trace.dat: the header sections of tests/fuzz/page-template.bin
 *     and this one format, as the ftrace system's or as an event system
 *     of its own (the reader's check and tep_parse_event; the template's
 *     other formats would cost more to parse than the rest), one CPU page
 *     of records with the event's ID (read from its "ID:" line) and the
 *     payload, decoded and printed in every mode (tep_print_event on
 *     the fuzzed print fmt).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "live/events/evformat.h"
#include "fuzz_common.h"

#define PAGE		4096
#define MAX_FORMAT	(64 * 1024)
#define MAX_PAYLOAD	1024
/* A record of type_len 1..28 holds up to 112 bytes (the kernel's small
 * records); 2 of them are the event ID. */
#define CHUNK		110

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void list_fields(const char *system, const char *text, size_t len)
{
	const struct kt_field *f;
	struct kt_event_format *fmt;
	size_t n, i, sum = 0;

	fmt = kt_event_format_parse(system, text, len);
	if (!fmt)
		return;
	n = kt_event_format_fields(fmt, &f);
	/* What list --fields prints; the sum keeps the reads alive. */
	for (i = 0; i < n; i++)
		sum += strlen(f[i].name) + strlen(f[i].type) +
		       (size_t)f[i].offset + (size_t)f[i].size;
	sum += strlen(kt_event_format_print(fmt)) + (size_t)kt_event_format_id(fmt);
	fprintf(kt_fuzz_quiet(), "%zu\n", sum);
	kt_event_format_close(fmt);
}

/* Records of event ID carrying the payload, CHUNK bytes each, on one
 * page (header: timestamp, commit; 8 bytes each, as page-template.bin's
 * header_page says). */
static size_t make_page(unsigned char *page, unsigned id,
			const uint8_t *pl, size_t n)
{
	size_t at = 16, c, len;
	uint64_t ts = 1000000, commit;
	uint32_t hdr;
	uint16_t id16 = (uint16_t)id;

	do {
		c = n < CHUNK ? n : CHUNK;
		len = (2 + c + 3) / 4 * 4;
		hdr = (uint32_t)(len / 4) | (uint32_t)1000 << 5;
		memcpy(page + at, &hdr, 4);
		memcpy(page + at + 4, &id16, 2);
		if (c)
			memcpy(page + at + 6, pl, c);
		at += 4 + len;
		pl = c ? pl + c : pl;
		n -= c;
	} while (n);
	commit = at - 16;
	memcpy(page, &ts, 8);
	memcpy(page + 8, &commit, 8);
	return PAGE;
}

static void add_count(unsigned char *at)
{
	uint32_t n;

	memcpy(&n, at, 4);
	n++;
	memcpy(at, &n, 4);
}

/* The template with the format added: after the ftrace formats (the
 * last of them) or after the event systems (a system of its own). */
static void read_as_file(bool ftrace, const char *text, size_t len,
			 const uint8_t *pl, size_t n)
{
	static const char sys[] = "fuzz";
	const unsigned char *tpl;
	unsigned char *head, *p, page[PAGE] = { 0 };
	size_t tpl_len, nftrace_at, nsys_at, head_len, at;
	const char *idl = strstr(text, "\nID: ");
	uint64_t size = len;
	uint32_t one = 1;

	tpl = kt_fuzz_template_bare(&tpl_len, &nftrace_at, &nsys_at);
	head_len = tpl_len + sizeof(sys) + 4 + 8 + len;
	head = malloc(head_len);
	if (!head)
		return;
	at = ftrace ? nsys_at : tpl_len;
	memcpy(head, tpl, at);
	p = head + at;
	if (ftrace) {
		add_count(head + nftrace_at);
	} else {
		add_count(head + nsys_at);
		memcpy(p, sys, sizeof(sys));
		p += sizeof(sys);
		memcpy(p, &one, 4);
		p += 4;
	}
	memcpy(p, &size, 8);
	p += 8;
	memcpy(p, text, len);
	p += len;
	memcpy(p, tpl + at, tpl_len - at);
	p += tpl_len - at;
	kt_fuzz_read_pages(head, (size_t)(p - head), page,
			   make_page(page, idl ? (unsigned)strtoul(idl + 5, NULL, 10) : 0,
				     pl, n), 1);
	free(head);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t len = nul ? (size_t)(nul - data) : size, n = 0;
	const uint8_t *pl = NULL;
	bool ftrace = false;
	char *text;

	if (len > MAX_FORMAT)
		return 0;
	if (nul && nul + 1 < data + size) {
		ftrace = nul[1] & 1;
		pl = nul + 2;
		n = size - len - 2;
		if (n > MAX_PAYLOAD)
			n = MAX_PAYLOAD;
	}
	text = malloc(len + 1);
	if (!text)
		return 0;
	memcpy(text, data, len);
	text[len] = '\0';
	kt_fuzz_quiet();
	list_fields(ftrace ? "ftrace" : "fuzz", text, len);
	read_as_file(ftrace, text, len, pl, n);
	free(text);
	return 0;
}
