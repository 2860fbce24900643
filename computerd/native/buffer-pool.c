/* Buffers JS dropped, kept for the FUSE loop, and write-run pages faulted in at once (buffer-pool.h). */
#include "buffer-pool.h"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define POOL_MAX 64
static struct {
  pthread_mutex_t lock;
  char *bufs[POOL_MAX];
  size_t sizes[POOL_MAX];
  int count;
  struct pool_counts counts;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

void pool_put(char *block) {
  size_t size = malloc_usable_size(block);
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t from = ((uintptr_t)block + 64 + page - 1) & ~(page - 1);
  uintptr_t to = ((uintptr_t)block + size) & ~(page - 1);
  if (to > from) madvise((void *)from, to - from, MADV_FREE);
  pthread_mutex_lock(&pool.lock);
  if (pool.count < POOL_MAX) {
    pool.bufs[pool.count] = block;
    pool.sizes[pool.count] = size;
    pool.count++;
    block = NULL;
  }
  pthread_mutex_unlock(&pool.lock);
  free(block);
}

/* A pooled buffer of at least `need` usable bytes, or NULL (lock held). */
static char *take_locked(size_t need) {
  for (int i = pool.count - 1; i >= 0; i--) {
    if (pool.sizes[i] < need) continue;
    char *block = pool.bufs[i];
    pool.bufs[i] = pool.bufs[pool.count - 1];
    pool.sizes[i] = pool.sizes[pool.count - 1];
    pool.count--;
    return block;
  }
  return NULL;
}

char *pool_take(size_t need) {
  pthread_mutex_lock(&pool.lock);
  char *block = take_locked(need);
  if (block) pool.counts.receive_reused++;
  pthread_mutex_unlock(&pool.lock);
  return block;
}

void pool_count_fresh_receive(void) {
  pthread_mutex_lock(&pool.lock);
  pool.counts.receive_fresh++;
  pthread_mutex_unlock(&pool.lock);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

void fault_in_pages(char *block, size_t size) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t from = ((uintptr_t)block + page - 1) & ~(page - 1);
  uintptr_t to = ((uintptr_t)block + size) & ~(page - 1);
  if (to <= from) return;
  madvise((void *)from, to - from, MADV_POPULATE_WRITE);
  pthread_mutex_lock(&pool.lock);
  pool.counts.populated++;
  pthread_mutex_unlock(&pool.lock);
}

struct pool_counts pool_counts(void) {
  pthread_mutex_lock(&pool.lock);
  struct pool_counts counts = pool.counts;
  counts.pooled = pool.count;
  pthread_mutex_unlock(&pool.lock);
  return counts;
}
