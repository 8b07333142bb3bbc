/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktrace.ko's per-CPU buffers, read into files while it records, merged
 * with ftrace's pages, and the task names its records hold.
 */
#ifndef KT_MODREC_H
#define KT_MODREC_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Per-CPU readers of trace<N>: one thread per CPU writes whole pages
 * into an unnamed temporary file in tmpdir until the engine is stopped
 * and drained, from the mapped ring where the module can map it.
 */
struct kt_modrec;
/* no_mmap: read() even where the module maps its rings. */
struct kt_modrec *kt_modrec_new(int ncpus, const char *tmpdir, bool no_mmap);
/*
 * How the buffers are read: "mmap" (every CPU's ring mapped, read in
 * place), "read" (read() of whole pages: an older module, or no_mmap),
 * "mmap+read" (some of each).
 */
const char *kt_modrec_read_mode(const struct kt_modrec *mr);
int kt_modrec_start(struct kt_modrec *mr);
/* Call after writing "stop" to state: waits for every page. 0/-errno. */
int kt_modrec_stop(struct kt_modrec *mr);
void kt_modrec_free(struct kt_modrec *mr);
int kt_modrec_fd(const struct kt_modrec *mr, int cpu);
unsigned long long kt_modrec_bytes(const struct kt_modrec *mr, int cpu);
unsigned long long kt_modrec_total(const struct kt_modrec *mr);

/*
 * Merge a CPU's module pages with another file of pages (the ftrace
 * recorder's: *fd and *size, read from offset 0) record by record in
 * time order, into new pages, so the CPU's data reads as one stream.
 * A page that followed lost events passes the flag on.  On return *fd and *size are the merged file (owned by mr).
 * 0 or -errno.
 */
int kt_modrec_merge(struct kt_modrec *mr, int cpu, int *fd,
		    unsigned long long *size);

/*
 * A series of chunks (record --rotate).  kt_modrec_can_rotate: every
 * CPU's ring is mapped (or the CPU was never up), so a reader can be
 * woken to cut; read() blocks in the module until a page is full.
 * kt_modrec_rotate: each CPU's reader takes what the ring holds, the
 * page being written closed too, and goes on into a new file at a page
 * boundary; the old file waits for kt_modrec_cut_merge.  That merges
 * it with *fd (*size bytes of another source's pages of this CPU, -1:
 * none) and what the last cut carried over, into a new file it returns
 * in *fd and *size (the caller closes it): the records at or before
 * cut; the later ones are carried into the next chunk's, so a chunk's
 * records all come before the next one's.  kt_modrec_merge at the end
 * takes what was carried too.  kt_modrec_bytes counts on across cuts.
 */
bool kt_modrec_can_rotate(const struct kt_modrec *mr);
int kt_modrec_rotate(struct kt_modrec *mr);
int kt_modrec_cut_merge(struct kt_modrec *mr, int cpu, unsigned long long cut,
			int *fd, unsigned long long *size);

/*
 * A snapshot while recording (where kt_modrec_can_rotate): a rotation
 * that switches no file.  kt_modrec_flush: each CPU's reader takes what
 * the ring holds, the page being written closed too, and goes on into
 * the same file, whose size then is noted.  kt_modrec_flush_merge
 * merges *fd (*size bytes of another source's pages of this CPU, -1:
 * none), what the last cut carried over and the CPU's pages up to that
 * size, read only, into a new file it returns in *fd and *size (the
 * caller closes it and the *fd it gave); the recording's files are
 * left as they were, so kt_modrec_merge at the end still takes every
 * record once.  0 or -errno.
 */
int kt_modrec_flush(struct kt_modrec *mr);
int kt_modrec_flush_merge(struct kt_modrec *mr, int cpu, int *fd,
			  unsigned long long *size);

/*
 * The names of the tasks in the recorded pages, as saved_cmdlines lines
 * ("PID COMM\n", one per pid, the newest name): from the records of the
 * events ids[i], whose name is a char array at offsets[i] of 16 bytes.
 * Call after kt_modrec_stop().  NULL + errno on failure; "" when none.
 */
char *kt_modrec_comms(const struct kt_modrec *mr, const int *ids,
		      const int *offsets, size_t n);

#endif
