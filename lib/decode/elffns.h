/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libelf functions ELF files are read with (elfsym.h), from
 * Debian's libelf.so.1 loaded on first use (base/dlfns.h) rather than
 * linked: linked, it (with the libz it brings) was a part of every ktrace
 * command's start, where only user-space symbols and uprobes need it.
 *
 * Include it after <gelf.h>: it makes their names read the loaded
 * pointers.  Nothing may call them before kt_elffns_get() has succeeded.
 */
#ifndef KT_DECODE_ELFFNS_H
#define KT_DECODE_ELFFNS_H

#include <gelf.h>
#include <libelf.h>

#define KT_ELF_FNS(X) \
	X(elf_begin) \
	X(elf_end) \
	X(elf_getdata) \
	X(elf_getphdrnum) \
	X(elf_kind) \
	X(elf_nextscn) \
	X(elf_strptr) \
	X(elf_version) \
	X(gelf_getehdr) \
	X(gelf_getnote) \
	X(gelf_getphdr) \
	X(gelf_getshdr) \
	X(gelf_getsym)

struct kt_elffns {
	/* __typeof__ keeps each pointer's type the header's own. */
#define KT_ELF_PTR(f) __typeof__(f) *f;
	KT_ELF_FNS(KT_ELF_PTR)
#undef KT_ELF_PTR
};

/*
 * libelf's functions, loaded once for the process: NULL on failure, the
 * reason in kt_elffns_error().
 */
const struct kt_elffns *kt_elffns_get(void);
/* Why kt_elffns_get() failed: "libelf.so.1: cannot open shared object file...". */
const char *kt_elffns_error(void);

extern const struct kt_elffns *kt_elffns;

#ifndef KT_ELF_LOADER
#define elf_begin	(kt_elffns->elf_begin)
#define elf_end		(kt_elffns->elf_end)
#define elf_getdata	(kt_elffns->elf_getdata)
#define elf_getphdrnum	(kt_elffns->elf_getphdrnum)
#define elf_kind	(kt_elffns->elf_kind)
#define elf_nextscn	(kt_elffns->elf_nextscn)
#define elf_strptr	(kt_elffns->elf_strptr)
#define elf_version	(kt_elffns->elf_version)
#define gelf_getehdr	(kt_elffns->gelf_getehdr)
#define gelf_getnote	(kt_elffns->gelf_getnote)
#define gelf_getphdr	(kt_elffns->gelf_getphdr)
#define gelf_getshdr	(kt_elffns->gelf_getshdr)
#define gelf_getsym	(kt_elffns->gelf_getsym)
#endif

#endif
