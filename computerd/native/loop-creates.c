#include "loop-creates.h"

#include <string.h>

void creates_init(struct loop_creates *c) {
  memset(c, 0, sizeof *c);
  pthread_mutex_init(&c->lock, NULL);
}

void creates_destroy(struct loop_creates *c) { pthread_mutex_destroy(&c->lock); }

void creates_set(struct loop_creates *c, int enabled, uint64_t id_lo, uint64_t id_hi, int direct,
                 double entry_timeout, double attr_timeout) {
  pthread_mutex_lock(&c->lock);
  c->enabled = enabled;
  c->id_lo = id_lo;
  c->id_hi = id_hi;
  c->direct = direct;
  c->entry_timeout = entry_timeout;
  c->attr_timeout = attr_timeout;
  pthread_mutex_unlock(&c->lock);
}

void creates_grant(struct loop_creates *c, uint64_t first, uint64_t count) {
  pthread_mutex_lock(&c->lock);
  if (c->next < c->end) {
    c->then_next = first;
    c->then_end = first + count;
  } else {
    c->next = first;
    c->end = first + count;
  }
  pthread_mutex_unlock(&c->lock);
}

uint64_t creates_left(struct loop_creates *c) {
  pthread_mutex_lock(&c->lock);
  uint64_t left = (c->end - c->next) + (c->then_end - c->then_next);
  pthread_mutex_unlock(&c->lock);
  return left;
}

int creates_on(struct loop_creates *c, double *entry_timeout, double *attr_timeout) {
  pthread_mutex_lock(&c->lock);
  int on = c->enabled;
  if (entry_timeout) *entry_timeout = c->entry_timeout;
  if (attr_timeout) *attr_timeout = c->attr_timeout;
  pthread_mutex_unlock(&c->lock);
  return on;
}

int creates_take(struct loop_creates *c, uint32_t uid, uint32_t gid, struct loop_create *out) {
  pthread_mutex_lock(&c->lock);
  if (c->next == c->end && c->then_next < c->then_end) {
    c->next = c->then_next;
    c->end = c->then_end;
    c->then_next = c->then_end = 0;
  }
  int ok = c->enabled && c->next < c->end && uid >= c->id_lo && uid < c->id_hi && gid >= c->id_lo && gid < c->id_hi;
  if (ok) {
    out->ino = c->next++;
    out->serial = c->taken++;
    out->direct = c->direct;
    out->entry_timeout = c->entry_timeout;
    out->attr_timeout = c->attr_timeout;
  }
  pthread_mutex_unlock(&c->lock);
  return ok;
}
