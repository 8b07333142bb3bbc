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
#include "decode/elffns.h"
#include "decode/elfsym.h"

const char *kt_elf_missing(void)
{
	return kt_elffns_get() ? NULL : kt_elffns_error();
}

/* libelf loaded and set up, once: 0, -ELIBACC or -ENOEXEC. */
static int elf_ready(void)
{
	static int ok = -1;

	if (!kt_elffns_get())
		return -ELIBACC;
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

/* The entries of symbol table scn (0 when it cannot be read). */
static size_t sym_count(Elf_Scn *scn, Elf_Data **d, GElf_Shdr *sh)
{
	*d = elf_getdata(scn, NULL);
	if (!*d || !gelf_getshdr(scn, sh) || !sh->sh_entsize)
		return 0;
	return sh->sh_size / sh->sh_entsize;
}

/* Entry i's name when it is a function with an address, else NULL. */
static const char *func_sym(Elf *e, Elf_Data *d, const GElf_Shdr *sh,
			    size_t i, GElf_Sym *s)
{
	if (!gelf_getsym(d, (int)i, s) || !s->st_value ||
	    (GELF_ST_TYPE(s->st_info) != STT_FUNC &&
	     GELF_ST_TYPE(s->st_info) != STT_GNU_IFUNC))
		return NULL;
	return elf_strptr(e, sh->sh_link, s->st_name);
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
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	size_t i, n = sym_count(scn, &d, &sh), dist;
	const char *name;
	bool have = false;

	for (i = 0; i < n; i++) {
		name = func_sym(e, d, &sh, i, &s);
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

/* An ELF file opened to read, with its two symbol tables (or NULL). */
struct elf_file {
	int fd;
	Elf *e;
	Elf_Scn *symtab, *dynsym;
};

static int elf_open(const char *path, struct elf_file *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret = elf_ready();

	memset(f, 0, sizeof(*f));
	if (ret)
		return ret;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	f->e = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->e || elf_kind(f->e) != ELF_K_ELF) {
		elf_end(f->e);
		close(f->fd);
		return -ENOEXEC;
	}
	while ((scn = elf_nextscn(f->e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			f->symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			f->dynsym = scn;
	}
	return 0;
}

static void elf_close(struct elf_file *f)
{
	elf_end(f->e);
	close(f->fd);
}

int kt_elf_func_offset(const char *path, const char *sym, uint64_t *off,
		       char *hint, size_t hintlen)
{
	struct near nr = { hint, hintlen, (size_t)-1 };
	struct elf_file f;
	GElf_Sym s;
	int ret;

	if (hintlen)
		hint[0] = '\0';
	ret = elf_open(path, &f);
	if (ret)
		return ret;
	ret = -ENOENT;
	if (f.symtab)
		ret = scan(f.e, f.symtab, sym, &s, &nr);
	if (ret && f.dynsym)
		ret = scan(f.e, f.dynsym, sym, &s, &nr);
	if (!ret)
		ret = vaddr_to_off(f.e, s.st_value, off);
	elf_close(&f);
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

/* ---- file offset -> function, for user stacks ---- */

struct fsym {
	uint64_t start;		/* virtual address */
	uint64_t size;
	const char *name;	/* into names */
};

struct kt_elf_syms {
	struct fsym *syms;	/* by start */
	size_t n;
	GElf_Phdr *load;	/* executable PT_LOADs */
	size_t nload;
	char *names;
	size_t names_len, names_cap;
};

static int by_start(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Keep every named function of one symbol table; offsets into es->names. */
static int keep_funcs(struct kt_elf_syms *es, Elf *e, Elf_Scn *scn)
{
	size_t i, n, cap = es->n, len;
	struct fsym *grown;
	const char *name;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	char *nb;

	n = sym_count(scn, &d, &sh);
	for (i = 0; i < n; i++) {
		name = func_sym(e, d, &sh, i, &s);
		if (!name || !*name)
			continue;
		if (es->n == cap) {
			cap = cap ? cap * 2 : 256;
			grown = realloc(es->syms, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			es->syms = grown;
		}
		len = strlen(name) + 1;
		if (es->names_len + len > es->names_cap) {
			size_t nc = es->names_cap ? es->names_cap * 2 : 4096;

			while (nc < es->names_len + len)
				nc *= 2;
			nb = realloc(es->names, nc);
			if (!nb)
				return -ENOMEM;
			es->names = nb;
			es->names_cap = nc;
		}
		memcpy(es->names + es->names_len, name, len);
		/* An offset for now: names may move as it grows. */
		es->syms[es->n++] = (struct fsym){ s.st_value, s.st_size,
						   (const char *)(uintptr_t)es->names_len };
		es->names_len += len;
	}
	return 0;
}

static int keep_loads(struct kt_elf_syms *es, Elf *e)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	es->load = calloc(n ? n : 1, sizeof(*es->load));
	if (!es->load)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X))
			es->load[es->nload++] = ph;
	return 0;
}

/*
 * The separate debug file of a stripped file, found by its build ID as
 * gdb finds it (/usr/lib/debug/.build-id/NN/REST.debug, what Debian's
 * -dbg and -dbgsym packages install): path, or "" without one.
 */
static void debug_file_of(Elf *e, char *path, size_t len)
{
	Elf_Scn *scn = NULL;
	size_t off, noff, doff, i;
	const unsigned char *id;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;
	int n;

	path[0] = '\0';
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (off = 0; (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0;) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4) || nh.n_descsz < 2 ||
			    nh.n_descsz > 64)
				continue;
			id = (const unsigned char *)d->d_buf + doff;
			n = snprintf(path, len, "/usr/lib/debug/.build-id/%02x/", id[0]);
			for (i = 1; i < nh.n_descsz && n > 0 && (size_t)n + 3 < len; i++)
				n += snprintf(path + n, len - (size_t)n, "%02x", id[i]);
			if (n <= 0 || (size_t)n + 7 > len ||
			    snprintf(path + n, len - (size_t)n, ".debug") != 6 ||
			    access(path, R_OK))
				path[0] = '\0';
			return;
		}
	}
}

/*
 * The functions of a stripped file: its debug file's .symtab when there
 * is one (the statics: __libc_start_call_main), else its own .dynsym.
 */
static int keep_stripped(struct kt_elf_syms *es, struct elf_file *f)
{
	struct elf_file dbg;
	char path[200];
	int ret;

	debug_file_of(f->e, path, sizeof(path));
	if (*path && !elf_open(path, &dbg)) {
		ret = dbg.symtab ? keep_funcs(es, dbg.e, dbg.symtab) : -ENOENT;
		elf_close(&dbg);
		if (ret != -ENOENT)
			return ret;
	}
	return f->dynsym ? keep_funcs(es, f->e, f->dynsym) : 0;
}

struct kt_elf_syms *kt_elf_syms_load(const char *path)
{
	struct kt_elf_syms *es;
	struct elf_file f;
	size_t i;
	int ret;

	es = calloc(1, sizeof(*es));
	if (!es)
		return NULL;
	ret = elf_open(path, &f);
	if (ret)
		goto err_free;
	/* Where the file's offsets lie: its own segments, not its debug file's. */
	ret = keep_loads(es, f.e);
	if (!ret)
		ret = f.symtab ? keep_funcs(es, f.e, f.symtab) : keep_stripped(es, &f);
	elf_close(&f);
	if (ret)
		goto err_free;
	for (i = 0; i < es->n; i++)
		es->syms[i].name = es->names + (uintptr_t)es->syms[i].name;
	qsort(es->syms, es->n, sizeof(*es->syms), by_start);
	return es;

err_free:
	kt_elf_syms_free(es);
	errno = -ret;
	return NULL;
}

void kt_elf_syms_free(struct kt_elf_syms *es)
{
	if (!es)
		return;
	free(es->syms);
	free(es->load);
	free(es->names);
	free(es);
}

int kt_elf_syms_find(const struct kt_elf_syms *es, uint64_t off,
		     const char **name, uint64_t *delta)
{
	size_t lo = 0, hi = es->n, i;
	uint64_t v = 0;
	bool mapped = false;
	const struct fsym *f;

	for (i = 0; i < es->nload && !mapped; i++)
		if (off >= es->load[i].p_offset &&
		    off < es->load[i].p_offset + es->load[i].p_filesz) {
			v = off - es->load[i].p_offset + es->load[i].p_vaddr;
			mapped = true;
		}
	if (!mapped)
		return -ENOENT;
	/* The last function starting at or before v. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].start <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	f = &es->syms[lo - 1];
	/* A sized function must hold v; an unsized one is taken as is. */
	if (f->size && v - f->start >= f->size) {
		/* Aliases share a start: look for a sized one that holds v. */
		while (lo > 1 && es->syms[lo - 2].start == f->start &&
		       v - f->start >= f->size)
			f = &es->syms[--lo - 1];
		if (f->size && v - f->start >= f->size)
			return -ENOENT;
	}
	*name = f->name;
	*delta = v - f->start;
	return 0;
}
