/* Names the FUSE loop can prove missing (loop-names.h). */
#include "loop-names.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a over the name's bytes; 0 is the free slot's mark. */
static uint64_t name_hash(const char *name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 0x100000001b3ull;
  return h ? h : 1;
}

static size_t slot_of(const struct name_set *set, uint64_t hash) {
  size_t i = (size_t)(hash >> 7) & (set->cap - 1);
  while (set->hashes[i] != 0 && set->hashes[i] != hash) i = (i + 1) & (set->cap - 1);
  return i;
}

static void set_free(struct name_set *set) {
  free(set->hashes);
  memset(set, 0, sizeof *set);
}

static struct name_set *dir_of(struct loop_names *n, uint64_t ino) {
  return &n->dirs[ino % NAME_DIRS];
}

/* Inserts (lock held); 0 when the set could not grow (the caller drops it). */
static int set_add(struct name_set *set, uint64_t hash) {
  if ((set->count + 1) * 2 > set->cap) {
    if (set->count + 1 > NAMES_PER_DIR_MAX) return 0;
    size_t cap = set->cap ? set->cap * 2 : 64;
    uint64_t *grown = calloc(cap, sizeof *grown);
    if (!grown) return 0;
    struct name_set bigger = {set->ino, grown, cap, 0};
    for (size_t i = 0; i < set->cap; i++)
      if (set->hashes[i] != 0) { grown[slot_of(&bigger, set->hashes[i])] = set->hashes[i]; bigger.count++; }
    free(set->hashes);
    *set = bigger;
  }
  size_t i = slot_of(set, hash);
  if (set->hashes[i] == 0) { set->hashes[i] = hash; set->count++; }
  return 1;
}

void names_init(struct loop_names *n) {
  memset(n, 0, sizeof *n);
  pthread_mutex_init(&n->lock, NULL);
}

void names_destroy(struct loop_names *n) {
  names_clear(n);
}

int names_hold(struct loop_names *n, uint64_t ino, const char *const *names, size_t count, double timeout) {
  if (ino == 0) return 0;
  /* Built first, installed whole: the loop never sees a directory with part of its names. */
  struct name_set built = {ino, calloc(64, sizeof(uint64_t)), 64, 0};
  int ok = built.hashes != NULL;
  for (size_t i = 0; ok && i < count; i++) ok = set_add(&built, name_hash(names[i]));
  if (!ok) set_free(&built);
  pthread_mutex_lock(&n->lock);
  struct name_set *set = dir_of(n, ino);
  set_free(set);
  if (ok) *set = built;
  n->timeout = timeout;
  pthread_mutex_unlock(&n->lock);
  return ok;
}

int names_hold_new(struct loop_names *n, uint64_t ino) {
  pthread_mutex_lock(&n->lock);
  double timeout = n->timeout;
  pthread_mutex_unlock(&n->lock);
  return names_hold(n, ino, NULL, 0, timeout);
}

void names_add(struct loop_names *n, uint64_t ino, const char *name) {
  pthread_mutex_lock(&n->lock);
  struct name_set *set = dir_of(n, ino);
  if (set->ino == ino && ino != 0 && !set_add(set, name_hash(name))) set_free(set);
  pthread_mutex_unlock(&n->lock);
}

int names_held(struct loop_names *n, uint64_t ino) {
  pthread_mutex_lock(&n->lock);
  int held = ino != 0 && dir_of(n, ino)->ino == ino;
  pthread_mutex_unlock(&n->lock);
  return held;
}

void names_drop(struct loop_names *n, uint64_t ino) {
  pthread_mutex_lock(&n->lock);
  struct name_set *set = dir_of(n, ino);
  if (set->ino == ino) set_free(set);
  pthread_mutex_unlock(&n->lock);
}

void names_clear(struct loop_names *n) {
  pthread_mutex_lock(&n->lock);
  for (size_t i = 0; i < NAME_DIRS; i++)
    if (n->dirs[i].ino != 0 || n->dirs[i].hashes) set_free(&n->dirs[i]);
  pthread_mutex_unlock(&n->lock);
}

/* Whether directory `parent` is held and `name` is not in it; under the lock. */
static int absent_locked(struct loop_names *n, uint64_t parent, uint64_t hash) {
  struct name_set *set = dir_of(n, parent);
  return parent != 0 && set->ino == parent && set->hashes[slot_of(set, hash)] == 0;
}

int names_missing(struct loop_names *n, uint64_t parent, const char *name, double *timeout) {
  uint64_t hash = name_hash(name);
  pthread_mutex_lock(&n->lock);
  int missing = absent_locked(n, parent, hash);
  *timeout = n->timeout;
  pthread_mutex_unlock(&n->lock);
  if (missing) __atomic_add_fetch(&n->answered, 1, __ATOMIC_RELAXED);
  return missing;
}

int names_absent(struct loop_names *n, uint64_t parent, const char *name) {
  uint64_t hash = name_hash(name);
  pthread_mutex_lock(&n->lock);
  int missing = absent_locked(n, parent, hash);
  pthread_mutex_unlock(&n->lock);
  return missing;
}
