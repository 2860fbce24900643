/*
 * Write runs: a stream of small writes the FUSE loop answers itself and hands to JS as one.
 *
 * A command writing through a small buffer (`head -c`, a compiler, tar: 4–128 KiB per write)
 * costs one trip through the JS thread per write, ~10× the write itself. Once JS has taken a
 * write through a handle, it arms that handle at the offset where the write ended (run_arm);
 * up to RUN_STREAMS handles are armed at once (npm's extraction writes hundreds of open files in
 * turn).
 * The next writes through one that continue there are copied into the run, answered by the loop
 * within the quota's room JS set aside (the early writes' credit), and handed to JS as one
 * answered write when the run reaches the end of its page, or before any other request goes
 * to JS (one loop, one queue: JS always sees them in the order the kernel sent them), or when
 * JS asks (the sync fence), or RUN_WAIT_MS after it began (its own thread, asleep while no run
 * is open: a writer that stops without closing still reaches JS), or when a write through
 * another armed handle begins a run of its own (one run is open at a time, so JS gets every
 * handle's writes in the kernel's order). A run never crosses a page (the write-back's 1 MiB
 * chunk), so a run that covers one whole becomes that page as it is.
 *
 * Thread-safe: the loop thread joins and hands over, the JS thread arms and flushes.
 */
#ifndef COMPUTERD_WRITE_RUN_H
#define COMPUTERD_WRITE_RUN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* What a run needs of its session. */
struct run_ops {
  void *ctx;
  /* Takes `bytes` of the room JS granted; 0 when that much is not left. */
  int (*take_credit)(void *ctx, long long bytes);
  /* The largest file size: no run goes past it. */
  long long (*file_size_max)(void *ctx);
  /* A run of `ino` begins: it counts as an early write on its way until JS has handled it. */
  void (*started)(void *ctx, uint64_t ino);
  /* Hands the run's bytes [start, start + len) of `ino` to JS, queued after everything
     queued before; `buf` (RUN_PAGE bytes allocated) is the callee's from then on. `at`: when
     its last write was answered (the file's mtime from then on). */
  void (*hand_over)(void *ctx, uint64_t ino, uint64_t fh, long long start, char *buf, size_t len,
                    const struct timespec *at);
};

/* The write-back's page (CHUNK_SIZE in JS). */
#define RUN_PAGE (1 << 20)

/* A run that reached this many bytes is a stream: the rest of its page is faulted in at once
   (fault_in_pages). A small file's one write never pays for the page's other 255. */
#define RUN_POPULATE_AFTER (64 << 10)

/* How long answered writes may wait for the next request before they go to JS anyway. */
#define RUN_WAIT_MS 100

/* Handles armed at once, by handle number (direct-mapped: JS numbers handles in turn, so the
   last RUN_STREAMS opened never collide); a handle whose slot another takes is forgotten (its
   next write goes to JS, which arms it again). */
#define RUN_STREAMS 1024

/* An armed handle: its next write at `next` may join a run. */
struct run_stream {
  int armed;
  uint64_t ino, fh;
  long long next;
};

struct write_run {
  pthread_mutex_t lock;
  struct run_ops ops;
  /* The flusher thread: waits for a run to begin, then hands it over after RUN_WAIT_MS. */
  pthread_t flusher;
  pthread_cond_t begun;
  int stopping;
  /* The armed handles, at fh % RUN_STREAMS. */
  struct run_stream streams[RUN_STREAMS];
  /* Answered bytes of `fh` (of `ino`) not handed over yet: [start, start + len), inside one page. */
  uint64_t ino, fh;
  char *buf;
  long long start;
  size_t len;
  int populated; /* the rest of buf's page was faulted in (RUN_POPULATE_AFTER) */
  struct timespec at; /* when its last write was answered */
  unsigned long generation; /* counts runs begun, so the flusher knows its run from the next */
  long joined; /* writes answered into runs since mount (atomic) */
};

/* 0, or an errno when the flusher thread could not start (then nothing needs destroying). */
int run_init(struct write_run *w, struct run_ops ops);
/* Stops the flusher and drops what the run holds (the session is going). */
void run_destroy(struct write_run *w);
/* JS took a write through `fh` of `ino` ending at `next`: the next writes there may join. */
void run_arm(struct write_run *w, uint64_t ino, uint64_t fh, long long next);
/* Stops joining writes of this inode through any handle (its size or sharing changed: JS decides again). */
void run_disarm_ino(struct write_run *w, uint64_t ino);
/* Stops joining writes through this handle (it is released). */
void run_disarm_fh(struct write_run *w, uint64_t fh);
/* Stops joining anything (a remote change). */
void run_disarm(struct write_run *w);
/* Hands the answered bytes over now (before another request reaches JS). */
void run_flush(struct write_run *w);
/* A whole-page write answered early continues its handle's armed stream: hands the run over
   and moves the stream past it. */
void run_skip(struct write_run *w, uint64_t fh, long long off, size_t size);
/* Joins a write if it continues its handle's armed stream (and the room allows): 1 when the
   caller may answer it as written at `at`; otherwise 0 and the run is handed over, so the write
   goes to JS next. */
int run_join(struct write_run *w, uint64_t ino, uint64_t fh, const char *data, size_t size, long long off,
             const struct timespec *at);

#endif
