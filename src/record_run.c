// SPDX-License-Identifier: MIT
/* The command run under tracing (ktrace record, stream) and the signals that stop
 * tracing: handlers only set flags and wake the main loop through a pipe. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "record_cli.h"

volatile sig_atomic_t record_got_stop, record_got_child;
static int wake_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGCHLD)
		record_got_child = 1;
	else
		record_got_stop = sig;
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], "x", 1) < 0) {
		/* the pipe is full: the main loop wakes up anyway */
	}
	errno = saved;
}

int record_signals_init(void)
{
	struct sigaction sa;

	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		cli_errorf(NULL, "pipe: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	return 0;
}

int record_signals_fd(void)
{
	return wake_pipe[0];
}

void record_signals_drain(void)
{
	char buf[64];

	while (wake_pipe[0] >= 0 && read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}

void record_signals_done(void)
{
	if (wake_pipe[0] >= 0)
		close(wake_pipe[0]);
	if (wake_pipe[1] >= 0)
		close(wake_pipe[1]);
	wake_pipe[0] = wake_pipe[1] = -1;
}

/* Child side: waits for the go (a byte; EOF means give up), then runs the command. */
static void child_run(int go_fd, char **argv)
{
	char c;
	ssize_t r;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	do
		r = read(go_fd, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1)
		_exit(127);
	close(go_fd);
	execvp(argv[0], argv);
	fprintf(stderr, "ktrace: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int record_child_fork(char **argv, struct record_child *c)
{
	int go[2];

	c->pid = -1;
	c->go = -1;
	c->status = 0;
	if (pipe2(go, O_CLOEXEC) < 0) {
		cli_errorf(NULL, "pipe: %s", strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		cli_errorf(NULL, "fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	if (c->pid == 0) {
		close(go[1]);
		child_run(go[0], argv);
	}
	close(go[0]);
	c->go = go[1];
	return 0;
}

int record_child_start(struct record_args *a, struct record_child *c)
{
	if (record_child_fork(a->command, c))
		return -1;
	if (a->filter_command) {
		if (cli_grow((void **)&a->pids, a->npids, sizeof(*a->pids)))
			return -1;
		a->pids[a->npids++] = c->pid;
		a->o.pids = a->pids;
		a->o.npids = a->npids;
	}
	return 0;
}

void record_child_go(struct record_child *c)
{
	if (c->go < 0)
		return;
	if (write(c->go, "g", 1) != 1)
		cli_errorf(NULL, "cannot start the command");
	close(c->go);
	c->go = -1;
}

bool record_child_exited(struct record_child *c)
{
	if (c->pid > 0 && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
		c->pid = -1;
		return true;
	}
	return c->pid < 0;
}

void record_child_finish(struct record_child *c, bool failed)
{
	if (c->go >= 0)
		close(c->go);      /* a child still waiting gives up */
	c->go = -1;
	if (c->pid > 0) {
		/* the tracing failed before the command ran, or a signal stopped us: a
		 * waiting child exits by itself; a running one is left to finish */
		if (failed && !record_got_stop) {
			kill(c->pid, SIGTERM);
			waitpid(c->pid, &c->status, 0);
		} else {
			waitpid(c->pid, &c->status, WNOHANG);
		}
		c->pid = -1;
	}
}

/* Can cmd be run? 0, or the status a shell gives: 127 not found, 126 not runnable
 * (with the message printed). Checked before tracing starts. */
int record_check_command(const char *cmd)
{
	const char *path = getenv("PATH");
	struct stat st;
	char buf[PATH_MAX];
	int found_not_exec = 0;

	if (strchr(cmd, '/')) {
		if (stat(cmd, &st) < 0) {
			cli_errorf(cmd, "cannot run the command: %s", strerror(errno));
			return errno == ENOENT ? 127 : 126;
		}
		if (!S_ISREG(st.st_mode) || access(cmd, X_OK) < 0) {
			cli_errorf(cmd, "cannot run the command: %s", S_ISREG(st.st_mode)
				   ? strerror(errno) : "not a regular file");
			return 126;
		}
		return 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, len ? path : ".", "/", cmd) <
		    (int)sizeof(buf) && stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(buf, X_OK) == 0)
				return 0;
			found_not_exec = 1;
		}
		path += len + (end ? 1 : 0);
		if (!end)
			break;
	}
	cli_errorf(cmd, found_not_exec ? "cannot run the command: permission denied"
				       : "command not found (nothing was recorded)");
	return found_not_exec ? 126 : 127;
}
