/* The loop thread follows a small-write stream's writer onto its CPU (writer-cpu.h). */
#include "writer-cpu.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int writer_cpu_of(pid_t tid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  /* The name (field 2) may hold spaces and parentheses: count fields after its last ')'. */
  char *p = strrchr(buf, ')');
  if (!p) return -1;
  /* Field 3 follows ") "; the processor is field 39. */
  for (int field = 2; field < 39 && p; field++) p = strchr(p + 1, ' ');
  if (!p) return -1;
  char *end;
  long cpu = strtol(p + 1, &end, 10);
  return end == p + 1 || cpu < 0 || cpu >= CPU_SETSIZE ? -1 : (int)cpu;
}

void writer_cpu_follow(struct writer_cpu *f, pid_t tid) {
  if (!f->saved) {
    if (sched_getaffinity(0, sizeof f->allowed, &f->allowed) != 0) return;
    f->saved = 1;
  }
  int cpu = writer_cpu_of(tid);
  if (cpu < 0 || !CPU_ISSET(cpu, &f->allowed) || (f->pinned && f->cpu == cpu)) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) return;
  f->pinned = 1;
  f->cpu = cpu;
}

void writer_cpu_let_go(struct writer_cpu *f) {
  if (!f->pinned) return;
  /* The mask it had; if that is refused now (the cpuset changed), every CPU: the kernel keeps
     the thread within its cpuset either way. */
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) CPU_SET(cpu, &all);
  if (sched_setaffinity(0, sizeof f->allowed, &f->allowed) == 0 || sched_setaffinity(0, sizeof all, &all) == 0)
    f->pinned = 0;
}
