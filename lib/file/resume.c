// SPDX-License-Identifier: GPL-2.0
/*
 * A writer going on from the head of a file this machine's ktrace began
 * (record --recover, the trigger's packed chunks in tests): see
 * kt_writer_resume_file() in writer.h.  The head is trusted no further
 * than the reader says (kt_reader_head()); the part after the formats is
 * kept only up to the last complete section.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file/reader.h"
#include "file/tracedat.h"
#include "file/writer.h"

/* Written here, in this machine's byte order, long and page size. */
static bool head_is_ours(const struct kt_reader_head *h, uint64_t keep, off_t size)
{
	return h->big_endian == (__BYTE_ORDER == __BIG_ENDIAN) &&
	       h->long_size == sizeof(long) &&
	       h->page_size == (unsigned int)getpagesize() &&
	       keep <= (uint64_t)size;
}

int kt_writer_resume_file(struct kt_writer *w, const char *path, bool *kallsyms_lost)
{
	void *map = MAP_FAILED;
	struct kt_reader_head h;
	struct stat st;
	uint64_t keep;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	ret = -EBADMSG;
	if (st.st_size < KT_DAT_MAGIC_LEN)
		goto out;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	ret = kt_reader_head(path, &h);
	if (ret)
		goto out;
	keep = h.printk_end ? h.printk_end : h.kallsyms_end ? h.kallsyms_end : h.formats_end;
	ret = -EBADMSG;
	if (!head_is_ours(&h, keep, st.st_size))
		goto out;
	if (kallsyms_lost)
		*kallsyms_lost = !h.kallsyms_end;
	/* The file keeps the version and compression it was begun with. */
	ret = kt_writer_set_format(w, h.version, h.version >= 7 ? h.compression : "none");
	if (!ret)
		ret = kt_writer_resume(w, map, keep);
	if (!ret && !h.kallsyms_end)
		ret = kt_writer_kallsyms(w, NULL, 0);
	if (!ret && !h.printk_end)
		ret = kt_writer_printk(w, NULL, 0);
out:
	if (map != MAP_FAILED)
		munmap(map, st.st_size);
	close(fd);
	return ret;
}
