/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF symbols, through elfutils' libelf, both ways: where a function of
 * a binary or library lies in its file (the offset uprobe_events takes,
 * for record's uprobes), a library named as a program would name it
 * ("libc") found where ld.so would find it, and which function holds a
 * file offset (for report's user stacks).  In decode/ so that live/
 * (probes) and report's formatting share one lookup.
 */
#ifndef KT_ELFSYM_H
#define KT_ELFSYM_H

#include <stddef.h>
#include <stdint.h>

/*
 * NULL when libelf loads (elffns.h), which everything below needs; else
 * why not ("libelf.so.1: cannot open shared object file..."), and each
 * of them fails (-ELIBACC, or NULL + ELIBACC).
 */
const char *kt_elf_missing(void);

/*
 * The file offset of function sym's entry in the ELF file path (from its
 * .symtab, else its .dynsym, and the executable PT_LOAD holding it).
 * 0; -ENOENT when path has no such function (hint: the closest name it
 * has, or ""); -ENOEXEC when path is not an ELF file of this machine;
 * other -errno.
 */
int kt_elf_func_offset(const char *path, const char *sym, uint64_t *off,
		       char *hint, size_t hintlen);

/*
 * name as a file: itself when it holds a '/', else the library ld.so
 * would load for it, from ld.so.cache ("libc" and "libc.so.6" both give
 * /lib/x86_64-linux-gnu/libc.so.6), of this machine's kind; else a
 * program found in PATH ("bash").  0, or -ENOENT.
 */
int kt_elf_find(const char *name, char *path, size_t len);

/*
 * The function symbols of one ELF file, loaded once, for looking up
 * many offsets.  NULL + errno (ENOEXEC: not ELF; ENOENT...).
 */
struct kt_elf_syms;
struct kt_elf_syms *kt_elf_syms_load(const char *path);
void kt_elf_syms_free(struct kt_elf_syms *es);
/*
 * The function holding file offset off of the file: its name and off's
 * distance from its start.  0, or -ENOENT (no function there: a
 * stripped file, or off outside its executable segments).
 */
int kt_elf_syms_find(const struct kt_elf_syms *es, uint64_t off,
		     const char **name, uint64_t *delta);

#endif
