/*
 * The memory the FUSE loop writes into without faulting it in page by page. A fresh 1 MiB
 * allocation costs the loop 256 page faults (zeroed, charged) while the writer waits, each a trip
 * through the hypervisor on a VM like this one (~20 µs each: half the loop's CPU while `head -c
 * 100M` wrote through a bare mount, docs/BENCH.md "Write runs without a fault per page").
 *
 * Receive buffers big writes took over come back to a pool when JS drops them: the finalizer of
 * their Buffer runs once V8 has proven that no JS reference is left, so a recycled buffer can
 * never still be a page, a cached chunk or a shared copy. Its pages are lazily freed (MADV_FREE,
 * the whole pages inside the allocation, never malloc's own words): an idle pool gives memory
 * back when the machine needs it, and a buffer the kernel did not reclaim is reused without
 * faults. Only buffers libfuse allocated are kept, and one is reused only by a session whose own
 * libfuse buffers are no bigger (malloc_usable_size), so a recycled buffer always holds what
 * libfuse reads into it. Process-wide: a buffer may outlive its session.
 *
 * A write run's page (write-run.h) is faulted in at once (fault_in_pages) once the run is a
 * stream. Run pages are not pooled: measured, it gained nothing over glibc's own reuse of them.
 */
#ifndef COMPUTERD_BUFFER_POOL_H
#define COMPUTERD_BUFFER_POOL_H

#include <stddef.h>

/* What the pool did since the process started, for counters. */
struct pool_counts {
  long receive_reused, receive_fresh; /* receive buffers taken from the pool / allocated by libfuse */
  long populated;                     /* write-run pages faulted in at once (fault_in_pages) */
  long pooled;                        /* buffers in the pool now */
};

/* A malloc'd buffer JS no longer references: kept while the pool has room, else freed. */
void pool_put(char *block);
/* A pooled buffer of at least `need` usable bytes (counted as a receive buffer), or NULL. */
char *pool_take(size_t need);
/* Counts a receive buffer libfuse allocated because the pool had none. */
void pool_count_fresh_receive(void);
/* Faults in the whole pages inside [block, block + size) at once, writable: one madvise
   (MADV_POPULATE_WRITE) instead of a fault per 4 KiB page as the loop fills them. Where the
   kernel has none (before 5.14) they fault in as they are written. */
void fault_in_pages(char *block, size_t size);
struct pool_counts pool_counts(void);

#endif
