// SPDX-License-Identifier: MIT
/* Copies of the inputs that can be read only once (spool.h). */
#include "engine/spool.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <ktrace/detect.h>
#include <ktrace/input.h>

#include "common/input_file.h"

bool kt_spool_needed(const char *path)
{
	struct stat st;

	return !strcmp(path, "-") || (!stat(path, &st) && S_ISFIFO(st.st_mode));
}

int kt_spool_once(const char *path, int *fd, struct ktrace_error *err)
{
	struct ktrace_input *in;
	const uint8_t *head;
	int64_t got;
	int ret;

	*fd = -1;
	if (!kt_spool_needed(path))
		return 0;
	if ((ret = ktrace_input_open(path, &in, err)))
		return ret;
	got = ktrace_input_peek(in, 0, KTRACE_DETECT_BYTES, &head, err);
	if (got >= 0 && ktrace_detect_format(head, (size_t)got) == KTRACE_FORMAT_UNKNOWN)
		got = ktrace_error_set(err, got ? -EBADMSG : -ENODATA, "%s",
				       got ? "unrecognised file format" : "empty file");
	if (got >= 0) {
		ret = kt_input_spool_fd(in, err);
		if (ret >= 0) {
			*fd = ret;
			ret = 0;
		}
	} else {
		ret = (int)got;
	}
	ktrace_input_close(in);
	return ret;
}
