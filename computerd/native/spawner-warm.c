/* computerd-spawner's warm entry (spawner-warm.h). */
#define _GNU_SOURCE
#include "spawner-warm.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "child-prelude.h"
#include "warm-entry.h"

/* The one warm entry: its computerd-enter process, the socket to its pid 1, the sandbox. */
static struct {
  pid_t pid; /* 0: none */
  int sock;
  int ready;
  char *holder;
  char *inodes;
} warm = {.sock = -1};

int warm_program(const char *program) {
  static char enter[PATH_MAX];
  if (!enter[0]) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 0;
    self[n] = '\0';
    snprintf(enter, sizeof enter, "%s/computerd-enter", dirname(self));
  }
  return strcmp(program, enter) == 0;
}

static void forget(void) {
  if (warm.sock >= 0) close(warm.sock);
  free(warm.holder);
  free(warm.inodes);
  warm.pid = 0;
  warm.sock = -1;
  warm.ready = 0;
  warm.holder = warm.inodes = NULL;
}

/* Ends the warm entry unused (its pid 1 dies with it: a parent-death signal). */
static void discard(void) {
  if (warm.pid > 0) kill(warm.pid, SIGKILL);
  forget();
}

static int same_sandbox(const struct enter_args *args) {
  return warm.pid > 0 && strcmp(warm.holder, args->holder) == 0 && strcmp(warm.inodes, args->inodes) == 0;
}

pid_t warm_take(const struct enter_args *args, const int fds[3], char *const *envp) {
  if (!warm.ready || !same_sandbox(args)) return -1;
  if (warm_send(warm.sock, fds, args->cwd ? args->cwd : "", args->argv, envp) != 0) {
    discard();
    return -1;
  }
  pid_t pid = warm.pid;
  forget();
  return pid;
}

void warm_up(const struct enter_args *args) {
  if (same_sandbox(args)) return;
  discard();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    /* It never executes anything itself (its command is a fork of its pid 1): every descriptor
       of the spawner's but its socket goes now, or it would hold other commands' pipes open. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (child_prelude() != 0 || null < 0 || chdir("/") < 0) _exit(125);
    for (int fd = 0; fd < 3; fd++) dup2(null, fd);
    int sock = fcntl(sv[1], F_DUPFD_CLOEXEC, 3);
    if (sock != 3 && (dup3(sock, 3, O_CLOEXEC) < 0)) _exit(125);
    close_range(4, ~0U, 0);
    _exit(enter_command(args, 3));
  }
  close(sv[1]);
  if (pid < 0) {
    close(sv[0]);
    return;
  }
  warm.pid = pid;
  warm.sock = sv[0];
  warm.ready = 0;
  warm.holder = strdup(args->holder);
  warm.inodes = strdup(args->inodes);
  if (!warm.holder || !warm.inodes) discard();
}

int warm_waiting_fd(void) {
  return warm.pid > 0 && !warm.ready ? warm.sock : -1;
}

void warm_readable(void) {
  char byte = 0;
  ssize_t n = read(warm.sock, &byte, 1);
  if (n == 1 && byte == WARM_READY) warm.ready = 1;
  else if (!(n < 0 && (errno == EINTR || errno == EAGAIN))) discard();
}

int warm_reaped(pid_t pid) {
  if (warm.pid <= 0 || pid != warm.pid) return 0;
  forget();
  return 1;
}
