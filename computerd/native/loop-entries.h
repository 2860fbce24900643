/*
 * Names the FUSE loop can answer as found: the lookup of a name JS answered with an entry
 * (a lookup that found it, a create, mknod, mkdir, symlink, link) is answered by the loop
 * again, with the attributes of the loop's table, and handed to JS as it is (JS counts the
 * kernel's lookup for its forget). npm's extraction makes each file's directory again: the
 * kernel revalidates the directory's entry (an exclusive mkdir asks even within its timeout).
 *
 * Exact: JS drops a name before it answers any request that removes or replaces it (unlink,
 * rmdir, rename), and every name for remote changes; the loop answers none while a removal is
 * on its way to JS. Direct-mapped by (directory, name): a collision only evicts.
 *
 * Thread-safe: the loop thread asks, the JS thread puts, drops and clears.
 */
#ifndef COMPUTERD_LOOP_ENTRIES_H
#define COMPUTERD_LOOP_ENTRIES_H

#include <pthread.h>
#include <stdint.h>

/* Names held at once. */
#define ENTRY_SLOTS 16384

struct entry_slot {
  uint64_t parent; /* 0: free */
  uint64_t ino;
  uint64_t hash;
  char *name;
};

struct loop_entries {
  pthread_mutex_t lock;
  double timeout; /* the entry's lifetime */
  struct entry_slot slots[ENTRY_SLOTS];
};

void entries_init(struct loop_entries *e);
/* Frees every name (the session is going). */
void entries_destroy(struct loop_entries *e);
/* `name` in directory `parent` is inode `ino` now (an entry JS answers), living `timeout` seconds. */
void entries_put(struct loop_entries *e, uint64_t parent, const char *name, uint64_t ino, double timeout);
/* `name` in directory `parent` is about to go or change. */
void entries_drop(struct loop_entries *e, uint64_t parent, const char *name);
/* Every name may have changed (remote changes). */
void entries_clear(struct loop_entries *e);
/* The inode `name` in directory `parent` is, or 0 when not held; the entry's lifetime in *timeout. */
uint64_t entries_find(struct loop_entries *e, uint64_t parent, const char *name, double *timeout);

#endif
