/* Write runs (write-run.h). */
#include "write-run.h"

#include "buffer-pool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void flush_locked(struct write_run *w);

static struct timespec after_ms(long ms) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  t.tv_sec += ms / 1000;
  t.tv_nsec += (ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec += 1;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

/* Sleeps while no run is open (an idle daemon is never woken), and hands over a run that is
   still open RUN_WAIT_MS after it began. */
static void *flusher_main(void *arg) {
  struct write_run *w = arg;
  pthread_mutex_lock(&w->lock);
  while (!w->stopping) {
    if (w->len == 0) {
      pthread_cond_wait(&w->begun, &w->lock);
      continue;
    }
    unsigned long run = w->generation;
    struct timespec deadline = after_ms(RUN_WAIT_MS);
    int waited = 0;
    while (!w->stopping && w->len > 0 && w->generation == run && waited != ETIMEDOUT)
      waited = pthread_cond_timedwait(&w->begun, &w->lock, &deadline);
    if (!w->stopping && w->len > 0 && w->generation == run) flush_locked(w);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

int run_init(struct write_run *w, struct run_ops ops) {
  memset(w, 0, sizeof *w);
  pthread_mutex_init(&w->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w->begun, &attr);
  pthread_condattr_destroy(&attr);
  w->ops = ops;
  int err = pthread_create(&w->flusher, NULL, flusher_main, w);
  if (err) {
    pthread_cond_destroy(&w->begun);
    pthread_mutex_destroy(&w->lock);
  }
  return err;
}

void run_destroy(struct write_run *w) {
  pthread_mutex_lock(&w->lock);
  w->stopping = 1;
  pthread_cond_signal(&w->begun);
  pthread_mutex_unlock(&w->lock);
  pthread_join(w->flusher, NULL);
  /* The lock stays usable: a late call finds an empty, disarmed run. */
  pthread_mutex_lock(&w->lock);
  free(w->buf);
  w->buf = NULL;
  w->len = 0;
  memset(w->streams, 0, sizeof w->streams);
  pthread_mutex_unlock(&w->lock);
}

/* The armed stream of `fh`, or NULL (lock held). */
static struct run_stream *stream_of(struct write_run *w, uint64_t fh) {
  struct run_stream *st = &w->streams[fh % RUN_STREAMS];
  return st->armed && st->fh == fh ? st : NULL;
}

/* Hands the run over (lock held): queued while no other request can be queued before it. */
static void flush_locked(struct write_run *w) {
  if (w->len == 0) return;
  char *buf = w->buf;
  size_t len = w->len;
  w->buf = NULL;
  w->len = 0;
  w->ops.hand_over(w->ops.ctx, w->ino, w->fh, w->start, buf, len, &w->at);
}

void run_flush(struct write_run *w) {
  pthread_mutex_lock(&w->lock);
  flush_locked(w);
  pthread_mutex_unlock(&w->lock);
}

void run_arm(struct write_run *w, uint64_t ino, uint64_t fh, long long next) {
  pthread_mutex_lock(&w->lock);
  /* The write JS just took was queued after any run, so a run still here is another stream's. */
  if (w->len > 0 && (w->fh != fh || w->start + (long long)w->len != next)) flush_locked(w);
  w->streams[fh % RUN_STREAMS] = (struct run_stream){.armed = 1, .ino = ino, .fh = fh, .next = next};
  pthread_mutex_unlock(&w->lock);
}

/* Disarms the streams `match` picks (all with match NULL), after handing the run over. */
static void disarm_where(struct write_run *w, int (*match)(const struct run_stream *, uint64_t),
                         uint64_t key) {
  pthread_mutex_lock(&w->lock);
  flush_locked(w);
  for (int i = 0; i < RUN_STREAMS; i++)
    if (w->streams[i].armed && (!match || match(&w->streams[i], key))) w->streams[i].armed = 0;
  pthread_mutex_unlock(&w->lock);
}
static int of_ino(const struct run_stream *st, uint64_t ino) { return st->ino == ino; }
static int of_fh(const struct run_stream *st, uint64_t fh) { return st->fh == fh; }

void run_disarm_ino(struct write_run *w, uint64_t ino) { disarm_where(w, of_ino, ino); }
void run_disarm_fh(struct write_run *w, uint64_t fh) { disarm_where(w, of_fh, fh); }
void run_disarm(struct write_run *w) { disarm_where(w, NULL, 0); }

void run_skip(struct write_run *w, uint64_t fh, long long off, size_t size) {
  pthread_mutex_lock(&w->lock);
  flush_locked(w);
  struct run_stream *st = stream_of(w, fh);
  if (st && st->next == off) st->next = off + (long long)size;
  pthread_mutex_unlock(&w->lock);
}

/* Copies `size` bytes at `off` through `st` into the run (lock held; they fit in the run's
   page and continue it). A new run takes `fresh` as its buffer. */
static void append_locked(struct write_run *w, const struct run_stream *st, const char *data, size_t size,
                          long long off, char **fresh) {
  if (w->len == 0) {
    w->buf = *fresh;
    *fresh = NULL;
    w->ino = st->ino;
    w->fh = st->fh;
    w->start = off;
    w->populated = 0;
    w->generation++;
    w->ops.started(w->ops.ctx, w->ino);
    pthread_cond_signal(&w->begun);
  }
  memcpy(w->buf + (off - w->start), data, size);
  w->len += size;
  if (!w->populated && w->len >= RUN_POPULATE_AFTER) {
    w->populated = 1;
    size_t room = RUN_PAGE - (size_t)(w->start % RUN_PAGE) - w->len;
    fault_in_pages(w->buf + w->len, room);
  }
  /* A run that reached its page's end goes now: a whole page is hashed and stored at once. */
  if ((w->start + (long long)w->len) % RUN_PAGE == 0) flush_locked(w);
}

int run_join(struct write_run *w, uint64_t ino, uint64_t fh, const char *data, size_t size, long long off,
             const struct timespec *at) {
  pthread_mutex_lock(&w->lock);
  long long page_end = (off / RUN_PAGE + 1) * (long long)RUN_PAGE;
  int crosses = off + (long long)size > page_end;
  struct run_stream *st = stream_of(w, fh);
  int joins = st && st->ino == ino && st->next == off && size > 0 && size <= RUN_PAGE &&
              off + (long long)size <= w->ops.file_size_max(w->ops.ctx);
  /* The open run is another handle's (or ended before this write): it goes first. */
  int other = w->len > 0 && (w->fh != fh || w->start + (long long)w->len != off);
  /* The buffers it needs first, so a write joins whole or not at all. */
  char *fresh[2] = {NULL, NULL};
  if (joins && (w->len == 0 || other)) joins = (fresh[0] = malloc(RUN_PAGE)) != NULL;
  if (joins && crosses) joins = (fresh[1] = malloc(RUN_PAGE)) != NULL;
  if (joins) joins = w->ops.take_credit(w->ops.ctx, (long long)size);
  if (!joins) {
    free(fresh[0]);
    free(fresh[1]);
    flush_locked(w);
    pthread_mutex_unlock(&w->lock);
    return 0;
  }
  if (other) flush_locked(w);
  w->at = *at;
  /* A write past its page's end fills this run and starts the next. */
  size_t first = crosses ? (size_t)(page_end - off) : size;
  append_locked(w, st, data, first, off, fresh[0] ? &fresh[0] : &fresh[1]);
  if (crosses) append_locked(w, st, data + first, size - first, page_end, &fresh[1]);
  st->next = off + (long long)size;
  __atomic_add_fetch(&w->joined, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&w->lock);
  return 1;
}
