/* Names the FUSE loop can answer as found (loop-entries.h). */
#include "loop-entries.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a over the directory's inode and the name's bytes. */
static uint64_t entry_hash(uint64_t parent, const char *name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < 8; i++) h = (h ^ ((parent >> (i * 8)) & 0xff)) * 0x100000001b3ull;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 0x100000001b3ull;
  return h;
}

static struct entry_slot *slot_of(struct loop_entries *e, uint64_t hash) {
  return &e->slots[(hash >> 7) % ENTRY_SLOTS];
}

static int matches(const struct entry_slot *slot, uint64_t parent, const char *name, uint64_t hash) {
  return slot->parent == parent && parent != 0 && slot->hash == hash && strcmp(slot->name, name) == 0;
}

static void slot_free(struct entry_slot *slot) {
  free(slot->name);
  memset(slot, 0, sizeof *slot);
}

void entries_init(struct loop_entries *e) {
  memset(e, 0, sizeof *e);
  pthread_mutex_init(&e->lock, NULL);
}

void entries_destroy(struct loop_entries *e) { entries_clear(e); }

void entries_put(struct loop_entries *e, uint64_t parent, const char *name, uint64_t ino, double timeout) {
  if (parent == 0 || ino == 0) return;
  uint64_t hash = entry_hash(parent, name);
  char *copy = strdup(name);
  pthread_mutex_lock(&e->lock);
  struct entry_slot *slot = slot_of(e, hash);
  slot_free(slot);
  if (copy) *slot = (struct entry_slot){parent, ino, hash, copy};
  e->timeout = timeout;
  pthread_mutex_unlock(&e->lock);
}

void entries_drop(struct loop_entries *e, uint64_t parent, const char *name) {
  uint64_t hash = entry_hash(parent, name);
  pthread_mutex_lock(&e->lock);
  struct entry_slot *slot = slot_of(e, hash);
  if (matches(slot, parent, name, hash)) slot_free(slot);
  pthread_mutex_unlock(&e->lock);
}

void entries_clear(struct loop_entries *e) {
  pthread_mutex_lock(&e->lock);
  for (size_t i = 0; i < ENTRY_SLOTS; i++)
    if (e->slots[i].parent != 0) slot_free(&e->slots[i]);
  pthread_mutex_unlock(&e->lock);
}

uint64_t entries_find(struct loop_entries *e, uint64_t parent, const char *name, double *timeout) {
  uint64_t hash = entry_hash(parent, name);
  pthread_mutex_lock(&e->lock);
  struct entry_slot *slot = slot_of(e, hash);
  uint64_t ino = matches(slot, parent, name, hash) ? slot->ino : 0;
  *timeout = e->timeout;
  pthread_mutex_unlock(&e->lock);
  return ino;
}
