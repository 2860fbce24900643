/* FUSE_HANDLE_KILLPRIV_V2 around libfuse 3.14 (kill-priv.h). */
#include "kill-priv.h"

#include <linux/fuse.h>
#include <string.h>

/* The fixed part of the request after its header, if `len` holds it. */
static const void *body(const void *mem, size_t len, size_t need) {
  return len >= sizeof(struct fuse_in_header) + need ? (const char *)mem + sizeof(struct fuse_in_header) : NULL;
}

void kill_priv_peek(struct kill_priv *k, const void *mem, size_t len) {
  k->kill = 0;
  if (len < sizeof(struct fuse_in_header)) return;
  const struct fuse_in_header *h = mem;
  const int on = __atomic_load_n(&k->on, __ATOMIC_RELAXED);
  switch (h->opcode) {
    case FUSE_INIT: {
      const struct fuse_init_in *in = body(mem, len, offsetof(struct fuse_init_in, flags) + sizeof in->flags);
      k->offered = in && (in->flags & FUSE_HANDLE_KILLPRIV_V2) != 0;
      k->init_pending = 1;
      k->init_unique = h->unique;
      return;
    }
    case FUSE_WRITE: {
      const struct fuse_write_in *in = body(mem, len, sizeof *in);
      k->kill = on && in && (in->write_flags & FUSE_WRITE_KILL_SUIDGID) != 0;
      return;
    }
    case FUSE_SETATTR: {
      const struct fuse_setattr_in *in = body(mem, len, sizeof *in);
      k->kill = on && in && (in->valid & FATTR_KILL_SUIDGID) != 0;
      return;
    }
    case FUSE_OPEN: {
      const struct fuse_open_in *in = body(mem, len, sizeof *in);
      k->kill = on && in && (in->open_flags & FUSE_OPEN_KILL_SUIDGID) != 0;
      return;
    }
    default:
      return;
  }
}

void kill_priv_reply(struct kill_priv *k, struct iovec *iov, int count) {
  if (!k->init_pending || count < 2 || iov[0].iov_len < sizeof(struct fuse_out_header)) return;
  const struct fuse_out_header *h = iov[0].iov_base;
  if (h->unique != k->init_unique) return;
  k->init_pending = 0;
  if (h->error != 0 || !k->offered || !k->wanted) return;
  if (iov[1].iov_len < offsetof(struct fuse_init_out, flags) + sizeof(uint32_t)) return;
  struct fuse_init_out *out = iov[1].iov_base;
  out->flags |= FUSE_HANDLE_KILLPRIV_V2;
  __atomic_store_n(&k->on, 1, __ATOMIC_RELEASE);
}
