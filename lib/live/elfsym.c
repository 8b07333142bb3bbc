// SPDX-License-Identifier: GPL-2.0
/*
 * Function offsets in ELF files and libraries found as ld.so finds
 * them, with libelf.  See elfsym.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/editdist.h"
#include "live/elfsym.h"

static int elf_ready(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = elf_version(EV_CURRENT) != EV_NONE;
	return ok ? 0 : -ENOEXEC;
}

/* The e_machine of the ELF file at path, or -1. */
static int machine_of(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), m = -1;
	GElf_Ehdr eh;
	Elf *e;

	if (fd < 0 || elf_ready()) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && gelf_getehdr(e, &eh))
		m = eh.e_machine;
	elf_end(e);
	close(fd);
	return m;
}

/* The virtual address v as a file offset, by the PT_LOAD that maps it. */
static int vaddr_to_off(Elf *e, uint64_t v, uint64_t *off)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_memsz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

struct near {
	char *hint;
	size_t len;
	size_t best;
};

/* Look for sym in one symbol table; remember the closest other name. */
static int scan(Elf *e, Elf_Scn *scn, const char *sym, GElf_Sym *found,
		struct near *nr)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Shdr sh;
	GElf_Sym s;
	size_t i, n, dist;
	const char *name;
	bool have = false;

	if (!d || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return -ENOENT;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(d, (int)i, &s) || !s.st_value ||
		    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
			continue;
		name = elf_strptr(e, sh.sh_link, s.st_name);
		if (!name)
			continue;
		if (!strcmp(name, sym)) {
			/* A global one before a file's static of the name. */
			if (!have || GELF_ST_BIND(s.st_info) == STB_GLOBAL)
				*found = s;
			have = true;
			continue;
		}
		if (nr->len && (dist = kt_edit_distance(sym, name)) < nr->best &&
		    dist <= 2) {
			nr->best = dist;
			snprintf(nr->hint, nr->len, "%s", name);
		}
	}
	return have ? 0 : -ENOENT;
}

int kt_elf_func_offset(const char *path, const char *sym, uint64_t *off,
		       char *hint, size_t hintlen)
{
	struct near nr = { hint, hintlen, (size_t)-1 };
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	int fd, ret;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf *e;

	if (hintlen)
		hint[0] = '\0';
	ret = elf_ready();
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	ret = -ENOENT;
	if (symtab)
		ret = scan(e, symtab, sym, &s, &nr);
	if (ret && dynsym)
		ret = scan(e, dynsym, sym, &s, &nr);
	if (!ret)
		ret = vaddr_to_off(e, s.st_value, off);
out:
	elf_end(e);
	close(fd);
	return ret;
}

/* The ld.so.cache entry for name ("libc", "libc.so.6") of our machine. */
static int from_cache(const char *name, int machine, char *path, size_t len)
{
	FILE *p = popen("/sbin/ldconfig -p 2>/dev/null || ldconfig -p 2>/dev/null", "re");
	char line[1024], soname[512], file[512];
	size_t n = strlen(name);
	int ret = -ENOENT;

	if (!p)
		return -errno;
	/* "\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6" */
	while (ret && fgets(line, sizeof(line), p)) {
		if (sscanf(line, " %511s (%*[^)]) => %511s", soname, file) != 2)
			continue;
		if (strcmp(soname, name) &&
		    (strncmp(soname, name, n) || strncmp(soname + n, ".so", 3)))
			continue;
		if (machine_of(file) != machine)
			continue;
		snprintf(path, len, "%s", file);
		ret = 0;
	}
	pclose(p);
	return ret;
}

int kt_elf_find(const char *name, char *path, size_t len)
{
	const char *dirs;
	char *copy, *dir, *save = NULL;
	int machine = machine_of("/proc/self/exe"), ret = -ENOENT;

	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		return access(path, R_OK) ? -errno : 0;
	}
	if (!from_cache(name, machine, path, len))
		return 0;
	/* A program: the one PATH gives. */
	dirs = getenv("PATH");
	copy = strdup(dirs ? dirs : "/usr/local/bin:/usr/bin:/bin");
	if (!copy)
		return -ENOMEM;
	for (dir = strtok_r(copy, ":", &save); dir && ret; dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, len, "%s/%s", dir, name);
		if (!access(path, X_OK) && machine_of(path) == machine)
			ret = 0;
	}
	free(copy);
	return ret;
}
