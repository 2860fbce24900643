/*
 * computerd-spawner: starts computerd's commands for it (computerd/src/exec/spawner.ts). A fork
 * copies the page tables of the process that forks: from computerd, or from a bare Node, that
 * cost 5 ms and more per command here (and tens of ms once computerd's caches have grown);
 * from this small program it costs a fraction of one. It runs nothing of its own: asked for one
 * spawn plan, it starts exactly that (cwd /, a session and process group of its own, signals
 * at their defaults, the plan's environment, uid and gid), and answers the command's pid and
 * the descriptors of the pipes it made for its stdout, stderr and stdin. computerd opens those
 * through /proc/PID/fd/N of this process, which gives it the same pipes, and then says so
 * ("taken"), upon which this process closes its own ends: until then, what the command writes
 * waits in the pipe and a command that reads finds a writer. It reports every exit. It exits
 * when computerd closes its stdin (computerd died): commands started with a parent-death signal
 * (computerd-enter, bubblewrap's --die-with-parent) go with it.
 *
 * Requests, on stdin: a 32-bit little-endian length, then that many bytes of NUL-terminated
 * fields:
 *   spawn ID STDIN UID GID ARGC ARG... ENVC VAR...   (STDIN "1": a pipe, else /dev/null; UID
 *                                                     and GID "" keep this process's)
 *   taken ID                                         (computerd holds the pipes of ID now)
 *   warm ARGC ARG...                                 (a computerd-enter call: ready a warm
 *                                                     entry in its held sandbox now, before
 *                                                     its first command; no reply)
 * Replies, on stdout, one line each:
 *   ready PID
 *   pid ID PID STDOUT STDERR STDIN WARM              (descriptors here; STDIN -1 without one;
 *                                                     WARM 1: it went to a warm entry)
 *   exit ID CODE SIGNAL                              (CODE -1 after a signal; SIGNAL 0 after
 *                                                     an exit)
 *   error ID ERRNO                                   (nothing runs: a pipe, the fork or the
 *                                                     exec failed)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child-prelude.h"
#include "enter.h"
#include "spawner-warm.h"

/* A request larger than this is refused as malformed (argv and environment are far smaller). */
#define MAX_REQUEST (64u << 20)

/* One command started and not yet both exited and taken. */
struct command {
  struct command *next;
  unsigned long id;
  pid_t pid;
  int fds[3]; /* this process's ends: stdout and stderr (read), stdin (write); -1 when closed */
  int exited;
  int taken;
};

static struct command *commands;

static void reply(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *format, ...) {
  char line[128];
  va_list args;
  va_start(args, format);
  int n = vsnprintf(line, sizeof line, format, args);
  va_end(args);
  for (int done = 0; done < n;) {
    ssize_t w = write(STDOUT_FILENO, line + done, (size_t)(n - done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(0); /* computerd is gone */
    done += (int)w;
  }
}

static void close_ends(struct command *c) {
  for (int i = 0; i < 3; i++) {
    if (c->fds[i] >= 0) close(c->fds[i]);
    c->fds[i] = -1;
  }
}

/* Drops `c` once nothing more is to be said or held for it. */
static void settle(struct command *c) {
  if (!c->exited || !c->taken) return;
  for (struct command **at = &commands; *at; at = &(*at)->next) {
    if (*at == c) {
      *at = c->next;
      free(c);
      return;
    }
  }
}

static struct command *find_id(unsigned long id) {
  for (struct command *c = commands; c; c = c->next)
    if (c->id == id) return c;
  return NULL;
}

/* The command's side of the fork: never returns. */
static void run_child(int in, int out, int err, int failed, const char *uid, const char *gid, char **argv,
                      char **envp) {
  int code = child_prelude();
  if (!code && (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)) code = errno;
  if (!code && (*uid || *gid) && setgroups(0, NULL) < 0) code = errno;
  if (!code && *gid && setgid((gid_t)strtoul(gid, NULL, 10)) < 0) code = errno;
  if (!code && *uid && setuid((uid_t)strtoul(uid, NULL, 10)) < 0) code = errno;
  if (!code && chdir("/") < 0) code = errno;
  if (!code) {
    environ = envp;
    execvp(argv[0], argv);
    code = errno;
  }
  while (write(failed, &code, sizeof code) < 0 && errno == EINTR) {
  }
  _exit(127);
}

/* Starts one command (`fields`: the spawn request's fields after "spawn"). */
static void spawn_command(char **fields, int count) {
  unsigned long id = count > 0 ? strtoul(fields[0], NULL, 10) : 0;
  if (count < 6) {
    reply("error %lu %d\n", id, EINVAL);
    return;
  }
  int with_stdin = strcmp(fields[1], "1") == 0;
  const char *uid = fields[2], *gid = fields[3];
  long argc = strtol(fields[4], NULL, 10);
  long envc = argc < 1 || 5 + argc >= count ? -1 : strtol(fields[5 + argc], NULL, 10);
  if (envc < 0 || 6 + argc + envc > count) {
    reply("error %lu %d\n", id, EINVAL);
    return;
  }
  char **argv = calloc((size_t)argc + 1, sizeof *argv);
  char **envp = calloc((size_t)envc + 1, sizeof *envp);
  if (!argv || !envp) {
    free(argv);
    free(envp);
    reply("error %lu %d\n", id, ENOMEM);
    return;
  }
  memcpy(argv, fields + 5, (size_t)argc * sizeof *argv);
  memcpy(envp, fields + 6 + argc, (size_t)envc * sizeof *envp);
  /* out, err, in (or /dev/null), and the exec error's pipe: all close on exec here. */
  int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1}, failed[2] = {-1, -1};
  int code = 0;
  if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 || pipe2(failed, O_CLOEXEC) < 0) code = errno;
  if (!code && with_stdin && pipe2(in, O_CLOEXEC) < 0) code = errno;
  if (!code && !with_stdin && (in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) code = errno;
  /* A call of computerd-enter: its command may go to the warm entry of its held sandbox. */
  struct enter_args entry;
  int entering = !*uid && !*gid && warm_program(argv[0]) && enter_parse((int)argc, argv, &entry) == 0;
  pid_t pid = -1;
  if (!code && entering) pid = warm_take(&entry, (int[]){in[0], out[1], err[1]}, envp);
  int warm = pid > 0;
  if (!code && !warm) {
    pid = fork();
    if (pid < 0) code = errno;
    if (pid == 0) run_child(in[0], out[1], err[1], failed[1], uid, gid, argv, envp);
  }
  int child_ends[] = {out[1], err[1], in[0], failed[1]};
  for (int i = 0; i < 4; i++)
    if (child_ends[i] >= 0) close(child_ends[i]);
  if (!code && !warm) {
    /* Until the exec: its errno if it failed, nothing (the pipe closed) if it ran. */
    ssize_t r;
    while ((r = read(failed[0], &code, sizeof code)) < 0 && errno == EINTR) {
    }
    if (r != sizeof code) code = 0;
    if (code) while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
      }
  }
  if (failed[0] >= 0) close(failed[0]);
  struct command *c = code ? NULL : calloc(1, sizeof *c);
  if (!c) {
    free(argv);
    free(envp);
    int ends[] = {out[0], err[0], in[1]};
    for (int i = 0; i < 3; i++)
      if (ends[i] >= 0) close(ends[i]);
    if (!code) {
      kill(pid, SIGKILL);
      code = ENOMEM;
    }
    reply("error %lu %d\n", id, code);
    return;
  }
  *c = (struct command){.next = commands, .id = id, .pid = pid, .fds = {out[0], err[0], in[1]}};
  commands = c;
  reply("pid %lu %d %d %d %d %d\n", id, pid, out[0], err[0], in[1], warm);
  /* The next command in that sandbox finds it set up (this one is on its way already). */
  if (entering) warm_up(&entry);
  free(argv);
  free(envp);
}

/*
 * Readies a warm entry for the held sandbox a computerd-enter call names (`fields`: the warm
 * request's fields after "warm"), so that even its first command finds one: computerd asks as
 * soon as the holder runs. Anything else is ignored (the next command then goes the cold way).
 */
static void warm_ahead(char **fields, int count) {
  long argc = count > 0 ? strtol(fields[0], NULL, 10) : 0;
  if (argc < 1 || argc > count - 1) return;
  struct enter_args entry;
  if (warm_program(fields[1]) && enter_parse((int)argc, fields + 1, &entry) == 0) warm_up(&entry);
}

static void handle(char *frame, uint32_t size) {
  /* Fields end in NUL: a frame without one at its end is malformed. */
  if (size == 0 || frame[size - 1] != '\0') return;
  int count = 0;
  for (uint32_t i = 0; i < size; i++) count += frame[i] == '\0';
  char **fields = calloc((size_t)count, sizeof *fields);
  if (!fields) return;
  for (int i = 0, at = 0; i < count; i++) {
    fields[i] = frame + at;
    at += (int)strlen(frame + at) + 1;
  }
  if (strcmp(fields[0], "spawn") == 0) {
    spawn_command(fields + 1, count - 1);
  } else if (strcmp(fields[0], "warm") == 0) {
    warm_ahead(fields + 1, count - 1);
  } else if (strcmp(fields[0], "taken") == 0 && count == 2) {
    struct command *c = find_id(strtoul(fields[1], NULL, 10));
    if (c) {
      close_ends(c);
      c->taken = 1;
      settle(c);
    }
  }
  free(fields);
}

/* Reports every child that ended. */
static void reap(void) {
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) return;
    if (warm_reaped(pid)) continue;
    for (struct command *c = commands; c; c = c->next) {
      if (c->pid != pid || c->exited) continue;
      c->exited = 1;
      if (WIFSIGNALED(status)) reply("exit %lu -1 %d\n", c->id, WTERMSIG(status));
      else reply("exit %lu %d 0\n", c->id, WEXITSTATUS(status));
      settle(c);
      break;
    }
  }
}

int main(void) {
  /* computerd killed: its stdin closes too, but do not outlive it even blocked in a write. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  int children = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (children < 0) {
    perror("computerd-spawner: signalfd");
    return 1;
  }
  reply("ready %d\n", getpid());
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  if (!buf) return 1;
  struct pollfd polled[3] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = children, .events = POLLIN}};
  for (;;) {
    polled[2] = (struct pollfd){.fd = warm_waiting_fd(), .events = POLLIN};
    if (poll(polled, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (polled[2].fd >= 0 && polled[2].revents) warm_readable();
    if (polled[1].revents) {
      struct signalfd_siginfo info;
      while (read(children, &info, sizeof info) > 0) {
      }
      reap();
    }
    if (!polled[0].revents) continue;
    if (len == cap) {
      char *grown = cap >= MAX_REQUEST + 4 ? NULL : realloc(buf, cap * 2);
      if (!grown) return 1;
      buf = grown;
      cap *= 2;
    }
    ssize_t n = read(STDIN_FILENO, buf + len, cap - len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0; /* computerd closed its end */
    len += (size_t)n;
    size_t at = 0;
    while (len - at >= 4) {
      uint32_t size = (uint32_t)(unsigned char)buf[at] | (uint32_t)(unsigned char)buf[at + 1] << 8 |
                      (uint32_t)(unsigned char)buf[at + 2] << 16 | (uint32_t)(unsigned char)buf[at + 3] << 24;
      if (size > MAX_REQUEST) return 1;
      if (len - at - 4 < size) break;
      handle(buf + at + 4, size);
      at += 4 + size;
    }
    memmove(buf, buf + at, len - at);
    len -= at;
  }
}
