/* The message that hands a warm entry its command (warm-entry.h). */
#define _GNU_SOURCE
#include "warm-entry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Its fields, each NUL-terminated: CWD ARGC ARG... ENVC VAR... */
static size_t field(char *at, const char *text) {
  size_t n = strlen(text) + 1;
  if (at) memcpy(at, text, n);
  return n;
}

static size_t count(char *const *list) {
  size_t n = 0;
  while (list[n]) n++;
  return n;
}

static size_t encode(char *out, const char *cwd, char *const *argv, char *const *envp) {
  char number[24];
  size_t size = field(out, cwd);
  snprintf(number, sizeof number, "%zu", count(argv));
  size += field(out ? out + size : NULL, number);
  for (size_t i = 0; argv[i]; i++) size += field(out ? out + size : NULL, argv[i]);
  snprintf(number, sizeof number, "%zu", count(envp));
  size += field(out ? out + size : NULL, number);
  for (size_t i = 0; envp[i]; i++) size += field(out ? out + size : NULL, envp[i]);
  return size;
}

int warm_send(int sock, const int fds[3], const char *cwd, char *const *argv, char *const *envp) {
  size_t size = encode(NULL, cwd, argv, envp);
  if (size > WARM_MESSAGE_MAX) return EMSGSIZE;
  char *body = malloc(size);
  if (!body) return ENOMEM;
  encode(body, cwd, argv, envp);
  struct iovec iov = {.iov_base = body, .iov_len = size};
  union {
    char buf[CMSG_SPACE(3 * sizeof(int))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg = {
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(3 * sizeof(int));
  memcpy(CMSG_DATA(cmsg), fds, 3 * sizeof(int));
  ssize_t sent;
  while ((sent = sendmsg(sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  int code = sent < 0 ? errno : (size_t)sent == size ? 0 : EPIPE;
  free(body);
  return code;
}

/* The next field of [*at, end), or NULL past the end. */
static char *next(char **at, char *end) {
  if (*at >= end) return NULL;
  char *start = *at;
  char *nul = memchr(start, '\0', (size_t)(end - start));
  if (!nul) return NULL;
  *at = nul + 1;
  return start;
}

/* `n` fields into a NULL-terminated list (allocated), or NULL. */
static char **list(char **at, char *end, const char *counted) {
  char *stop = NULL;
  unsigned long n = counted ? strtoul(counted, &stop, 10) : 0;
  if (!counted || *stop != '\0' || n > WARM_MESSAGE_MAX) return NULL;
  char **out = calloc(n + 1, sizeof *out);
  if (!out) return NULL;
  for (unsigned long i = 0; i < n; i++) {
    out[i] = next(at, end);
    if (!out[i]) {
      free(out);
      return NULL;
    }
  }
  return out;
}

int warm_receive(int sock, struct warm_command *out) {
  memset(out, 0, sizeof *out);
  out->fds[0] = out->fds[1] = out->fds[2] = -1;
  out->buffer = malloc(WARM_MESSAGE_MAX);
  if (!out->buffer) return -1;
  struct iovec iov = {.iov_base = out->buffer, .iov_len = WARM_MESSAGE_MAX};
  union {
    char buf[CMSG_SPACE(3 * sizeof(int))];
    struct cmsghdr align;
  } control;
  struct msghdr msg = {
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  ssize_t got;
  while ((got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  struct cmsghdr *cmsg = got > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
  if (cmsg && cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS &&
      cmsg->cmsg_len == CMSG_LEN(3 * sizeof(int))) {
    memcpy(out->fds, CMSG_DATA(cmsg), 3 * sizeof(int));
  }
  char *at = out->buffer, *end = out->buffer + (got > 0 ? got : 0);
  out->cwd = next(&at, end);
  if (out->cwd) out->argv = list(&at, end, next(&at, end));
  if (out->argv) out->envp = list(&at, end, next(&at, end));
  if (out->fds[2] < 0 || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || !out->envp || !out->argv[0]) {
    warm_release(out);
    return -1;
  }
  return 0;
}

void warm_release(struct warm_command *command) {
  for (int i = 0; i < 3; i++) {
    if (command->fds[i] >= 0) close(command->fds[i]);
    command->fds[i] = -1;
  }
  free(command->argv);
  free(command->envp);
  free(command->buffer);
  memset(command, 0, sizeof *command);
  command->fds[0] = command->fds[1] = command->fds[2] = -1;
}
