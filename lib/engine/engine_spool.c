// SPDX-License-Identifier: MIT
/* Copies of the inputs that can be read only once (spool.h). */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	struct stat st;
	int64_t got;
	int ret;

	*fd = -1;
	if (!kt_spool_needed(path))
		return 0;
	if (!strcmp(path, "-") && !fstat(STDIN_FILENO, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		/* a file on standard input (<file) can be opened again as it is, whole */
		*fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		return *fd < 0 ? ktrace_error_set(err, -errno, "%s", strerror(errno)) : 0;
	}
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
