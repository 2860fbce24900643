/*
 * Creates the FUSE loop answers itself: a new file's CREATE made a trip through the JS thread
 * (~150 µs of its CPU: the vfs's rows, the node table) while the creator waited, a third of a
 * small file's cost through the mount. The loop answers it at once where JS's answer is certain
 * (fuse3.c ll_create: the name is certainly missing, the directory's attributes are the loop's,
 * no setid bit is involved), with an inode number JS reserved ahead (Store.reserveInodes), the
 * caller's ids and the loop's clock, and hands it to JS as it is, in order, before any request
 * about the new file: JS makes the node with exactly that number, owner and times.
 *
 * JS turns it on with the owner ids whose files it shows as the caller's own (an owner map that
 * gives the kernel back the id it stored), and keeps a supply of inode numbers: the range in use
 * and the next one, granted while the first runs low, so the numbers of new files follow each
 * other as JS's own would (the loop's attribute table is direct-mapped by inode: spread numbers
 * collide); the loop answers nothing once both are out.
 *
 * Thread-safe: the loop thread takes, the JS thread sets and grants.
 */
#ifndef COMPUTERD_LOOP_CREATES_H
#define COMPUTERD_LOOP_CREATES_H

#include <pthread.h>
#include <stdint.h>

struct loop_creates {
  pthread_mutex_t lock;
  int enabled;
  /* Inode numbers JS reserved for them: next up to end (exclusive), then the range granted after. */
  uint64_t next, end;
  uint64_t then_next, then_end;
  /* Caller ids (uid and gid alike) whose new files the kernel sees owned by the caller. */
  uint64_t id_lo, id_hi;
  /* A write-only create opens for direct writes (direct-writes.ts). */
  int direct;
  double entry_timeout, attr_timeout;
  uint64_t taken;
  long answered; /* creates answered (the caller counts them; atomic: read by the counters) */
};

/* What the loop answers a create with. */
struct loop_create {
  uint64_t ino;
  uint64_t serial; /* this create's number among those answered: its handle's */
  int direct;
  double entry_timeout, attr_timeout;
};

void creates_init(struct loop_creates *c);
void creates_destroy(struct loop_creates *c);
/* Turns the loop's creates on for callers with ids in [id_lo, id_hi), or off (enabled 0). */
void creates_set(struct loop_creates *c, int enabled, uint64_t id_lo, uint64_t id_hi, int direct,
                 double entry_timeout, double attr_timeout);
/* The inode numbers [first, first + count): the range in use when it is out, else the next one. */
void creates_grant(struct loop_creates *c, uint64_t first, uint64_t count);
/* Numbers left in the supply (both ranges). */
uint64_t creates_left(struct loop_creates *c);
/* Whether the loop's creates are on: the loop's other changes of names follow them (JS holds
   them all while the DO's changes are applied). Under the lock creates_set turns them off under.
   The lifetimes of an entry and of attributes it answers go to *entry_timeout and *attr_timeout
   (each may be NULL). */
int creates_on(struct loop_creates *c, double *entry_timeout, double *attr_timeout);
/* Takes a number for a create by uid/gid into *out; 0 when the loop may not answer it. */
int creates_take(struct loop_creates *c, uint32_t uid, uint32_t gid, struct loop_create *out);

#endif
