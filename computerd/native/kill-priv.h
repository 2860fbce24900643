/*
 * FUSE_HANDLE_KILLPRIV_V2: the daemon, not the kernel, takes setuid and setgid from a file that
 * a caller without CAP_FSETID writes, truncates or opens with O_TRUNC. The kernel then marks the
 * superblock SB_NOSEC, so after one `security.capability` probe of an inode (it finds no
 * capability and no setuid/setgid bit) its next writes go without a probe: one round trip per
 * write syscall instead of two. It still probes and removes capabilities itself wherever the
 * inode is not marked (a refreshed setuid mode, a security xattr set through it clears the mark).
 *
 * libfuse 3.14 (Debian 12) neither negotiates the flag nor passes the kill bits on, so the
 * addon does both around it: it reads the raw request before libfuse parses it (the kernel's
 * INIT offer, each write's, setattr's and open's kill bit) and adds the flag to libfuse's INIT
 * reply on its way out (libfuse's custom I/O hook). Loop thread only, except `on` (atomic).
 */
#ifndef COMPUTERD_KILL_PRIV_H
#define COMPUTERD_KILL_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct kill_priv {
  int wanted;           /* JS asked for it (set before the mount) */
  int offered;          /* the kernel's INIT offered it */
  int init_pending;     /* INIT read, its reply not sent yet */
  uint64_t init_unique; /* that INIT's request id */
  int on;               /* negotiated (atomic) */
  int kill;             /* the request being processed asks the daemon to kill setuid/setgid */
};

/* Reads the raw request `mem` (`len` bytes) before libfuse processes it. */
void kill_priv_peek(struct kill_priv *k, const void *mem, size_t len);
/* A reply on its way to the kernel: adds the flag to the INIT reply when offered and wanted. */
void kill_priv_reply(struct kill_priv *k, struct iovec *iov, int count);

#endif
