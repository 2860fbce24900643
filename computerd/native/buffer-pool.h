/*
 * Buffers JS dropped, kept for the FUSE loop to write into again: the receive buffers big writes
 * took over, and the pages of write runs (write-run.h). A fresh 1 MiB allocation costs the loop
 * 256 page faults (zeroed, charged) while the writer waits, each a trip through the hypervisor
 * on a VM like this one (~20 µs each: half the loop's CPU while `head -c 100M` wrote through a
 * bare mount, docs/BENCH.md "Write runs without a fault per page"); a kept buffer has its pages
 * already. Process-wide: a buffer may outlive its session.
 *
 * A buffer comes back only from the finalizer of its Buffer, which runs once V8 has proven that
 * no JS reference is left, so a recycled buffer can never still be a page, a cached chunk or a
 * shared copy. Its pages are lazily freed (MADV_FREE, the whole pages inside the allocation,
 * never malloc's own words): an idle pool gives memory back when the machine needs it, and a
 * buffer the kernel did not reclaim is reused without faults. One is reused only where it is
 * big enough (malloc_usable_size).
 */
#ifndef COMPUTERD_BUFFER_POOL_H
#define COMPUTERD_BUFFER_POOL_H

#include <stddef.h>

/* What the pool did since the process started, for counters. */
struct pool_counts {
  long receive_reused, receive_fresh; /* receive buffers taken from the pool / allocated by libfuse */
  long run_reused, run_fresh;         /* write-run pages taken from the pool / allocated */
  long populated;                     /* run pages faulted in at once (pool_populate) */
  long pooled;                        /* buffers in the pool now */
};

/* A malloc'd buffer JS no longer references: kept while the pool has room, else freed. */
void pool_put(char *block);
/* A pooled buffer of at least `need` usable bytes (counted as a receive buffer), or NULL. */
char *pool_take(size_t need);
/* Counts a receive buffer libfuse allocated because the pool had none. */
void pool_count_fresh_receive(void);
/* A buffer of at least `size` bytes for a write run: pooled if one is, else malloc'd; NULL when
   memory is out. Give it back with pool_put (JS's finalizer) or free. */
char *pool_take_run_page(size_t size);
/* Faults in the whole pages inside [block, block + size) at once, writable: one madvise
   (MADV_POPULATE_WRITE) instead of a fault per 4 KiB page as the loop fills them. Where the
   kernel has none (before 5.14) they fault in as they are written. */
void pool_populate(char *block, size_t size);
struct pool_counts pool_counts(void);

#endif
