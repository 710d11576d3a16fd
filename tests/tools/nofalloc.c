/*
 * Preloaded into ktrace by tests/timeline/timeline.sh (never into a sanitized build):
 * every fallocate() fails with EOPNOTSUPP, as on a file system that cannot insert or
 * collapse a range of blocks; the timeline page's layout then copies its parts instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>

int fallocate(int fd, int mode, off_t offset, off_t len);
int fallocate64(int fd, int mode, off_t offset, off_t len);

int fallocate(int fd, int mode, off_t offset, off_t len)
{
	(void)fd;
	(void)mode;
	(void)offset;
	(void)len;
	errno = EOPNOTSUPP;
	return -1;
}

int fallocate64(int fd, int mode, off_t offset, off_t len)
{
	return fallocate(fd, mode, offset, len);
}
