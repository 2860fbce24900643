/*
 * Bytes of small files the FUSE loop wrote itself, so it answers their reads too: git adds the
 * files a command just wrote and reads every object it just wrote, a trip through the JS thread
 * per file (1,011 of `git init + commit 1000 files`' 3,343), because a just-written file's
 * first read is due to update its atime (relatime) and so finds no page in the kernel's cache.
 *
 * A write run (write-run.h) handed to JS from offset 0 is kept here (pieces that continue it are
 * added; anything else drops it). The bytes are the whole file if its size is theirs, and they
 * are taken with that size and mtime, as the loop's attributes of the file say when it kept them
 * through the run's writes (fuse3.c attrs_after_write: the run is dated by its last write), or
 * else as JS next gives them (cacheAttrs takes none while the run is on its way, so the first
 * after it has the run). The loop answers a read from them while its attribute table shows the same size and
 * mtime (every change of a file's bytes moves its mtime). Every request that may change a
 * file's bytes drops them as the loop sees it (a write JS answers, a setattr, a copy into it, an
 * open that truncates, the unlink of its last name, the kernel's forget), and JS's clears of the
 * attribute table (remote changes, which always reach the loop) drop them all. JS's drops of
 * one inode's attributes leave them: JS drops as it handles the changes the loop has seen
 * already (the run itself among them), and after a background store, which changes no byte.
 *
 * Not thread-safe: the caller holds the attribute table's lock.
 */
#ifndef COMPUTERD_LOOP_CONTENTS_H
#define COMPUTERD_LOOP_CONTENTS_H

#include <stddef.h>
#include <stdint.h>

/* Files held at once (direct-mapped by inode: a collision drops the other). */
#define CONTENT_SLOTS 16384
/* The largest file kept. */
#define CONTENT_FILE_MAX (64 << 10)
/* The bytes kept at once; past it new files are not kept until others go. */
#define CONTENT_BYTES_MAX (32 << 20)

struct content_slot {
  uint64_t ino; /* 0: free */
  int taken;    /* the size and mtime below are the file's (pending until then) */
  double size, mtime_sec, mtime_nsec;
  char *bytes;
  size_t len;
};

struct loop_contents {
  struct content_slot slots[CONTENT_SLOTS];
  size_t held; /* bytes held in all slots */
  size_t used; /* slots held (a clear with none touches no slot) */
  long answered; /* reads answered from them (atomic) */
};

void contents_init(struct loop_contents *c);
/* Frees everything (the session is going). */
void contents_destroy(struct loop_contents *c);
/* A run of `ino`'s bytes [start, start + len) was handed to JS. */
void contents_ran(struct loop_contents *c, uint64_t ino, long long start, const char *buf, size_t len);
/* The bytes of `ino` may change (or are gone). */
void contents_drop(struct loop_contents *c, uint64_t ino);
/* Every file's bytes may have changed (remote changes). */
void contents_clear(struct loop_contents *c);
/* JS gave the loop these attributes (14 numbers) of attr[0]: pending bytes are taken or dropped. */
void contents_attrs(struct loop_contents *c, const double *attr);
/* The bytes of the file with these attributes (14 numbers), or NULL when the loop has none. */
const struct content_slot *contents_of(struct loop_contents *c, const double *attr);

#endif
