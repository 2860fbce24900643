/* Bytes of small files the FUSE loop wrote itself (loop-contents.h). */
#include "loop-contents.h"

#include <stdlib.h>
#include <string.h>

static struct content_slot *slot_of(struct loop_contents *c, uint64_t ino) { return &c->slots[ino % CONTENT_SLOTS]; }

static void slot_free(struct loop_contents *c, struct content_slot *slot) {
  c->held -= slot->len;
  c->used--;
  free(slot->bytes);
  memset(slot, 0, sizeof *slot);
}

void contents_init(struct loop_contents *c) { memset(c, 0, sizeof *c); }

void contents_destroy(struct loop_contents *c) { contents_clear(c); }

void contents_ran(struct loop_contents *c, uint64_t ino, long long start, const char *buf, size_t len) {
  if (ino == 0) return;
  struct content_slot *slot = slot_of(c, ino);
  int continues = slot->ino == ino && start == (long long)slot->len;
  if (!continues) {
    if (slot->ino != 0) slot_free(c, slot);
    if (start != 0) return;
  }
  size_t total = (size_t)start + len;
  if (total > CONTENT_FILE_MAX || c->held + len > CONTENT_BYTES_MAX) {
    if (slot->ino == ino) slot_free(c, slot);
    return;
  }
  char *bytes = realloc(slot->bytes, total ? total : 1);
  if (!bytes) {
    if (slot->ino == ino) slot_free(c, slot);
    return;
  }
  memcpy(bytes + start, buf, len);
  if (slot->ino == 0) c->used++;
  slot->ino = ino;
  slot->bytes = bytes;
  slot->len = total;
  /* More bytes: the file's attributes JS gives next are taken again. */
  slot->taken = 0;
  c->held += len;
}

void contents_drop(struct loop_contents *c, uint64_t ino) {
  struct content_slot *slot = slot_of(c, ino);
  if (slot->ino == ino && ino != 0) slot_free(c, slot);
}

void contents_clear(struct loop_contents *c) {
  for (int i = 0; i < CONTENT_SLOTS && c->used > 0; i++)
    if (c->slots[i].ino != 0) slot_free(c, &c->slots[i]);
}

static int same_version(const struct content_slot *slot, const double *attr) {
  return slot->size == attr[6] && slot->mtime_sec == attr[10] && slot->mtime_nsec == attr[11];
}

void contents_attrs(struct loop_contents *c, const double *attr) {
  uint64_t ino = (uint64_t)attr[0];
  struct content_slot *slot = slot_of(c, ino);
  if (slot->ino != ino || ino == 0) return;
  if (!slot->taken) {
    if (attr[6] != (double)slot->len) {
      slot_free(c, slot);
      return;
    }
    slot->taken = 1;
    slot->size = attr[6];
    slot->mtime_sec = attr[10];
    slot->mtime_nsec = attr[11];
    return;
  }
  if (!same_version(slot, attr)) slot_free(c, slot);
}

const struct content_slot *contents_of(struct loop_contents *c, const double *attr) {
  uint64_t ino = (uint64_t)attr[0];
  struct content_slot *slot = slot_of(c, ino);
  return slot->ino == ino && ino != 0 && slot->taken && same_version(slot, attr) ? slot : NULL;
}
