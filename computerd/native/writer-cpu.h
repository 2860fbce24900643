/*
 * The FUSE loop thread follows a small-write stream's writer onto its CPU.
 *
 * Each write syscall is a synchronous round trip: the writer sleeps until the loop has answered.
 * The kernel's FUSE wakes the loop where it last ran, so with the loop on the other CPU every
 * write pays two cross-CPU wake-ups, which in a VM (an idle vCPU halts; waking it is an IPI
 * through the hypervisor) cost several times the round trip on one CPU: this machine's
 * `dd bs=4k`, both pinned to one CPU ~45 µs per write, to different CPUs ~180 µs. While the loop
 * answers a stream of small writes itself (write runs) it pins itself to the CPU the writer last
 * ran on (read from /proc once per page of the stream, not per write) and lets go when the
 * stream's handle is released, so other requests are served wherever the scheduler likes.
 *
 * Loop thread only.
 */
#ifndef COMPUTERD_WRITER_CPU_H
#define COMPUTERD_WRITER_CPU_H

#include <sched.h> /* cpu_set_t: _GNU_SOURCE is set in binding.gyp */
#include <sys/types.h>

struct writer_cpu {
  int pinned;       /* the loop thread is pinned to `cpu` */
  int cpu;
  int saved;        /* `allowed` holds the loop thread's own mask */
  cpu_set_t allowed;
};

/* The CPU `tid` last ran on (/proc/<tid>/stat, field 39), or -1. */
int writer_cpu_of(pid_t tid);
/* Pins the calling (loop) thread to the CPU `tid` last ran on, if it may run there. */
void writer_cpu_follow(struct writer_cpu *f, pid_t tid);
/* Gives the loop thread its own CPUs back. */
void writer_cpu_let_go(struct writer_cpu *f);

#endif
