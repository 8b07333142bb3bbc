// SPDX-License-Identifier: GPL-2.0
/*
 * Run a fuzz target over files without libFuzzer (gcc and ASan are
 * enough): replay FILE|DIR...  Each file is one input; a crash or a
 * sanitizer report ends the run with the sanitizer's status.  Prints the
 * number of inputs replayed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int one(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(1);
	}
	buf = malloc(len ? len : 1);
	if (!buf || fread(buf, 1, len, f) != (size_t)len) {
		perror(path);
		exit(1);
	}
	fclose(f);
	if (getenv("KT_REPLAY_VERBOSE"))
		fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 1;
}

static int walk(const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[4096];
	int n = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		perror(path);
		exit(1);
	}
	if (!S_ISDIR(st.st_mode))
		return one(path);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		n += walk(sub);
	}
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int i, n = 0;

	for (i = 1; i < argc; i++)
		n += walk(argv[i]);
	printf("replayed %d inputs\n", n);
	return 0;
}
