/*
 * Names the FUSE loop can prove missing: the lookup of a name that does not exist is answered
 * by the loop (a negative entry) in a directory whose names it holds.
 *
 * A new file costs a lookup miss before its create (an exclusive create, npm's, a second one:
 * the kernel revalidates even a cached miss then), each a trip through the JS thread. JS gives
 * the loop every name of a directory it answered a miss in (or just created, empty) and, before
 * it answers any request that adds a name there (create, mknod, mkdir, symlink, link, rename),
 * that name. A held set may hold more than the directory (names removed since, hash
 * collisions: such a lookup goes to JS), never less, so a miss answered here is one JS would
 * answer. Remote changes drop every set. The kernel holds a directory's lock while a change of
 * names in it is on its way, so a lookup there cannot overtake one.
 *
 * Thread-safe: the loop thread asks, the JS thread holds, adds and drops.
 */
#ifndef COMPUTERD_LOOP_NAMES_H
#define COMPUTERD_LOOP_NAMES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* Directories held at once (direct-mapped by inode: a collision drops the other). */
#define NAME_DIRS 4096
/* Names one directory may hold; past it the directory is dropped (JS may hold it again). */
#define NAMES_PER_DIR_MAX 16384

struct name_set {
  uint64_t ino; /* 0: free */
  uint64_t *hashes; /* open addressing, 0 marks a free slot */
  size_t cap, count;
};

struct loop_names {
  pthread_mutex_t lock;
  double timeout; /* the negative entry's lifetime */
  struct name_set dirs[NAME_DIRS];
  long answered; /* misses answered since mount (atomic) */
};

void names_init(struct loop_names *n);
/* Frees every set (the session is going). */
void names_destroy(struct loop_names *n);
/* Holds directory `ino` with exactly `names` (replacing what was held); 0 when not held (out of
   memory, too many names). */
int names_hold(struct loop_names *n, uint64_t ino, const char *const *names, size_t count, double timeout);
/* Holds directory `ino`, just made, with no names; its misses live as long as the last hold's. */
int names_hold_new(struct loop_names *n, uint64_t ino);
/* Adds `name` to directory `ino` if it is held. */
void names_add(struct loop_names *n, uint64_t ino, const char *name);
/* Whether directory `ino` is held. */
int names_held(struct loop_names *n, uint64_t ino);
/* Stops holding directory `ino`. */
void names_drop(struct loop_names *n, uint64_t ino);
/* Stops holding every directory (remote changes). */
void names_clear(struct loop_names *n);
/* 1 when directory `parent` is held and `name` is not in it: the caller answers the miss
   with the negative entry's lifetime in *timeout. */
int names_missing(struct loop_names *n, uint64_t parent, const char *name, double *timeout);
/* The same, uncounted: a create the loop answers asks whether its name is certainly free. */
int names_absent(struct loop_names *n, uint64_t parent, const char *name);

#endif
