// SPDX-License-Identifier: MIT
/*
 * Regression driver for the fuzz harnesses: built with the ordinary compiler, it feeds
 * every file of the corpus directories given on the command line to
 * LLVMFuzzerTestOneInput, so that `make check` replays the corpus (under the
 * sanitizers in the SAN=1 build). Prints one "ok - file" line per input; a crash is
 * the failure.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -1;
	}
	/* An exact-size allocation, so that the sanitizers see reads past the input. */
	buf = malloc(len ? (size_t)len : 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int files = 0;

	for (int i = 1; i < argc; i++) {
		struct dirent *de;
		char **names = NULL;
		size_t n = 0, cap = 0;
		DIR *d = opendir(argv[i]);

		if (!d) {
			printf("not ok - cannot open corpus %s\n", argv[i]);
			return 1;
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				names = realloc(names, cap * sizeof(*names));
				if (!names)
					return 1;
			}
			names[n++] = strdup(de->d_name);
		}
		closedir(d);
		qsort(names, n, sizeof(*names), cmp_names);
		for (size_t k = 0; k < n; k++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]);
			if (run_file(path) < 0)
				printf("not ok - cannot read %s\n", path);
			else
				printf("ok - %s\n", path);
			files++;
			free(names[k]);
		}
		free(names);
	}
	if (!files) {
		printf("not ok - empty corpus\n");
		return 1;
	}
	return 0;
}
