/*
 * computerd's FUSE 3 binding: a small N-API addon over the libfuse3 low-level API.
 * One thread runs fuse_session_loop; every request is copied into a struct and handed
 * to JavaScript through a thread-safe function (the loop never waits for JS), and JS
 * answers later with the exported reply functions. Kernel notifications run on the
 * libuv thread pool, because the kernel may hold a directory lock that a pending
 * request (answered by the JS thread) waits on. Requests whose answer is certain without JS
 * the loop answers itself and hands to JS as they are: here (getattrs, opens, flushes, write
 * runs...) and in loop-changes.c (creates, unlinks, mkdirs, links, reads of what it wrote).
 *
 * Lifetime: unmount ends the loop (waking its read with WAKE_SIGNAL when a process still
 * holds the detached mount open); destroy joins the loop thread, and the session itself is
 * destroyed once the last request handed to JS has been answered, so a late reply never
 * touches a freed session. The session struct goes when JS drops its handle.
 */
#define FUSE_USE_VERSION 34
#define NAPI_VERSION 8
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <malloc.h>
#include <node_api.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "buffer-pool.h"
#include "kill-priv.h"
#include "loop-changes.h"
#include "loop-contents.h"
#include "loop-creates.h"
#include "loop-entries.h"
#include "loop-names.h"
#include "write-run.h"
#include "writer-cpu.h"

#include "session.h"

/* Interrupts the loop thread's read of /dev/fuse on unmount (0: no signal was free). */
static int wake_signal;
static void on_wake(int sig) { (void)sig; }

char *dup_str(const char *s) { return s ? strdup(s) : NULL; }

void free_request(struct request *r) {
  free(r->s1); free(r->s2);
  free(r->data_block ? r->data_block : r->data);
  free(r);
}

/* The session of a request is destroyed only when no answer is still to come: this runs
   after every reply to a request that make() counted. */
static void finish(struct session *s);
static void answered(struct session *s) {
  if (__atomic_sub_fetch(&s->pending, 1, __ATOMIC_ACQ_REL) == 0 && s->destroying) finish(s);
}

static int removes_name(enum op op);
/* A change of names the loop answered never reaches JS (it is going away): nothing waits for it. */
static void loop_answer_dropped(struct session *s, struct request *r) {
  if (!r->loop_answered) return;
  slot_changes_end(s, r);
  __atomic_sub_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
  if (r->op == OP_UNLINK_ANSWERED) __atomic_sub_fetch(&s->unlinks_pending, 1, __ATOMIC_ACQ_REL);
}
void enqueue(struct session *s, struct request *r) {
  /* Writes answered into a run come first: JS sees every request in the kernel's order. */
  run_flush(&s->run);
  int removal = removes_name(r->op);
  if (removal) __atomic_add_fetch(&s->removals_pending, 1, __ATOMIC_ACQ_REL);
  if (napi_call_threadsafe_function(s->tsfn, r, napi_tsfn_nonblocking) != napi_ok) {
    if (removal) __atomic_sub_fetch(&s->removals_pending, 1, __ATOMIC_ACQ_REL);
    if (r->req) { fuse_reply_err(r->req, EIO); answered(s); }
    loop_answer_dropped(s, r);
    free_request(r);
  }
}

struct request *make(fuse_req_t req, enum op op) {
  struct request *r = calloc(1, sizeof *r);
  r->op = op;
  r->req = req;
  if (req) {
    __atomic_add_fetch(&((struct session *)fuse_req_userdata(req))->pending, 1, __ATOMIC_ACQ_REL);
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    r->uid = ctx->uid; r->gid = ctx->gid; r->pid = ctx->pid; r->umask = ctx->umask;
  }
  return r;
}

static struct session *sess(fuse_req_t req) { return fuse_req_userdata(req); }

static void ll_init(void *userdata, struct fuse_conn_info *conn) {
  (void)userdata;
  if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC) conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
  conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
  /* The kernel would drop a file's pages whenever a getattr shows an mtime or size it had not
     cached — after every write of its own (it keeps no mtime without the writeback cache).
     The daemon decides at each open instead (FOPEN_KEEP_CACHE) and notifies remote changes. */
  conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
  /* Every readdir carries the entries' attributes (ls -l, find, git status and npm then need no
     lookup per name); the kernel's "auto" mode would ask for them only on a directory's first read. */
  if (conn->capable & FUSE_CAP_READDIRPLUS) {
    conn->want |= FUSE_CAP_READDIRPLUS;
    conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
  }
  conn->max_write = 1 << 20;
  conn->max_read = 0;
  conn->max_readahead = 1 << 20;
}


/*
 * Answers the lookup of a name JS answered as found (loop-entries.h) with the attributes of the
 * loop's table (exactly what JS would answer: see attr_cache), and hands it to JS as
 * OP_LOOKUP_FOUND ([parent, ino, name]), in order, so JS counts the lookup before any forget.
 * 0 when the loop holds the name or its inode's attributes not.
 */
static int lookup_found(struct session *s, fuse_req_t req, fuse_ino_t parent, const char *name) {
  double entry_timeout = 0;
  fuse_ino_t ino = (fuse_ino_t)entries_find(&s->entries, parent, name, &entry_timeout);
  if (ino == 0) return 0;
  struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
  struct fuse_entry_param e;
  memset(&e, 0, sizeof e);
  pthread_mutex_lock(&s->attrs->lock);
  int hit = slot->ino == ino;
  if (hit) {
    stat_from(slot->attr, &e.attr);
    e.attr_timeout = s->attrs->timeout;
  }
  pthread_mutex_unlock(&s->attrs->lock);
  if (!hit) return 0;
  e.ino = ino;
  e.generation = 1;
  e.entry_timeout = entry_timeout;
  struct request *r = make(NULL, OP_LOOKUP_FOUND); PUSH(r, parent); PUSH(r, ino); r->s1 = dup_str(name);
  fuse_reply_entry(req, &e);
  enqueue(s, r);
  return 1;
}

static void ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
  /* A name the loop can prove missing: the negative entry JS would answer. A name too long
     goes to JS, which answers ENAMETOOLONG. */
  struct session *s = sess(req);
  double timeout = 0;
  if (strlen(name) <= 255 && names_missing(&s->names, parent, name, &timeout)) {
    struct fuse_entry_param e;
    memset(&e, 0, sizeof e);
    e.generation = 1;
    e.entry_timeout = timeout;
    fuse_reply_entry(req, &e);
    return;
  }
  /* Not while a removal is on its way to JS: the name may be going (JS drops it as it handles
     the removal), and JS must count this lookup before it handles the removal. */
  if (__atomic_load_n(&s->removals_pending, __ATOMIC_ACQUIRE) == 0 &&
      __atomic_load_n(&s->unlinks_pending, __ATOMIC_ACQUIRE) == 0 && lookup_found(s, req, parent, name))
    return;
  struct request *r = make(req, OP_LOOKUP); PUSH(r, parent); r->s1 = dup_str(name); enqueue(sess(req), r);
}
static void bytes_drop(struct session *s, fuse_ino_t ino);
static void ll_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
  struct session *s = sess(req);
  fuse_reply_none(req);
  bytes_drop(s, ino);
  struct request *r = make(NULL, OP_FORGET); PUSH(r, ino); PUSH(r, nlookup); enqueue(s, r);
}
static void ll_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets) {
  struct session *s = sess(req);
  fuse_reply_none(req);
  for (size_t i = 0; i < count; i++) {
    bytes_drop(s, forgets[i].ino);
    struct request *r = make(NULL, OP_FORGET); PUSH(r, forgets[i].ino); PUSH(r, forgets[i].nlookup); enqueue(s, r);
  }
}
/* Forgets the attributes of `ino` (it changed, or is about to). */
static void attrs_drop(struct session *s, fuse_ino_t ino) {
  struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
  pthread_mutex_lock(&s->attrs->lock);
  if (slot->ino == ino) slot->ino = 0;
  pthread_mutex_unlock(&s->attrs->lock);
}
/* Forgets the bytes the loop kept of `ino` (they may change, or the file is gone). */
static void bytes_drop(struct session *s, fuse_ino_t ino) {
  pthread_mutex_lock(&s->attrs->lock);
  contents_drop(&s->attrs->contents, ino);
  pthread_mutex_unlock(&s->attrs->lock);
}

/* An early write or run of `ino` is answered and on its way to JS (raised before its slot is
   dropped, so an entry JS computed before the write is either dropped or refused) / JS has
   handled it. */
static void early_begin(struct session *s, fuse_ino_t ino) {
  __atomic_add_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
  __atomic_add_fetch(&s->attrs->early[ino % ATTR_SLOTS], 1, __ATOMIC_ACQ_REL);
}
static void early_end(struct session *s, fuse_ino_t ino) {
  __atomic_sub_fetch(&s->attrs->early[ino % ATTR_SLOTS], 1, __ATOMIC_ACQ_REL);
  __atomic_sub_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
}
/* A change of names the loop answered (request `r`) changes its attributes of `ino` (a
   directory, a file whose link count moved) before JS has handled it: until its handler starts,
   cacheAttrs takes none of that slot (JS may have computed them before it). Raised before the
   slot changes. */
void slot_change_begin(struct session *s, struct request *r, fuse_ino_t ino) {
  __atomic_add_fetch(&s->attrs->early[ino % ATTR_SLOTS], 1, __ATOMIC_ACQ_REL);
  r->changed[r->changed_count++] = ino;
}
void slot_changes_end(struct session *s, struct request *r) {
  for (int i = 0; i < r->changed_count; i++)
    __atomic_sub_fetch(&s->attrs->early[r->changed[i] % ATTR_SLOTS], 1, __ATOMIC_ACQ_REL);
  r->changed_count = 0;
}

static void ll_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  struct session *s = sess(req);
  struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
  struct stat st;
  int hit = 0;
  double timeout = 0;
  pthread_mutex_lock(&s->attrs->lock);
  if (slot->ino == ino && ino != 0) {
    stat_from(slot->attr, &st);
    timeout = s->attrs->timeout;
    hit = 1;
  }
  pthread_mutex_unlock(&s->attrs->lock);
  if (hit) {
    __atomic_add_fetch(&s->loop_getattr, 1, __ATOMIC_RELAXED);
    fuse_reply_attr(req, &st, timeout);
    return;
  }
  struct request *r = make(req, OP_GETATTR); PUSH(r, ino); PUSH(r, fi ? (double)fi->fh : -1); enqueue(sess(req), r);
}
static void ll_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set, struct fuse_file_info *fi) {
  run_disarm_ino(&sess(req)->run, ino);
  bytes_drop(sess(req), ino);
  if (times_here(sess(req), req, ino, attr, to_set)) return;
  struct request *r = make(req, OP_SETATTR);
  PUSH(r, ino); PUSH(r, to_set); PUSH(r, attr->st_mode); PUSH(r, attr->st_uid); PUSH(r, attr->st_gid);
  PUSH(r, attr->st_size); PUSH(r, attr->st_atim.tv_sec); PUSH(r, attr->st_atim.tv_nsec);
  PUSH(r, attr->st_mtim.tv_sec); PUSH(r, attr->st_mtim.tv_nsec); PUSH(r, fi ? (double)fi->fh : -1);
  PUSH(r, sess(req)->kill_priv.kill);
  enqueue(sess(req), r);
}
static void ll_readlink(fuse_req_t req, fuse_ino_t ino) {
  struct request *r = make(req, OP_READLINK); PUSH(r, ino); enqueue(sess(req), r);
}
static void ll_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev) {
  struct request *r = make(req, OP_MKNOD); PUSH(r, parent); PUSH(r, mode); PUSH(r, rdev); r->s1 = dup_str(name);
  enqueue(sess(req), r);
}
static void ll_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode) {
  if (mkdir_here(sess(req), req, parent, name, mode)) return;
  struct request *r = make(req, OP_MKDIR); PUSH(r, parent); PUSH(r, mode); r->s1 = dup_str(name); enqueue(sess(req), r);
}
/* A request that may remove a name (unlink, rmdir, rename) is on its way to JS (ll_open). */
static int removes_name(enum op op) { return op == OP_UNLINK || op == OP_RMDIR || op == OP_RENAME; }

static void ll_unlink(fuse_req_t req, fuse_ino_t parent, const char *name) {
  if (unlink_here(sess(req), req, parent, name)) return;
  struct request *r = make(req, OP_UNLINK); PUSH(r, parent); r->s1 = dup_str(name); enqueue(sess(req), r);
}
static void ll_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name) {
  struct request *r = make(req, OP_RMDIR); PUSH(r, parent); r->s1 = dup_str(name); enqueue(sess(req), r);
}
static void ll_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name) {
  struct request *r = make(req, OP_SYMLINK); PUSH(r, parent); r->s1 = dup_str(name); r->s2 = dup_str(link);
  enqueue(sess(req), r);
}
static void ll_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent, const char *newname,
                      unsigned int flags) {
  struct request *r = make(req, OP_RENAME); PUSH(r, parent); PUSH(r, newparent); PUSH(r, flags);
  r->s1 = dup_str(name); r->s2 = dup_str(newname); enqueue(sess(req), r);
}
static void ll_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname) {
  if (link_here(sess(req), req, ino, newparent, newname)) return;
  struct request *r = make(req, OP_LINK); PUSH(r, ino); PUSH(r, newparent); r->s1 = dup_str(newname);
  enqueue(sess(req), r);
}
/* File handles the loop numbers itself (ll_open): above JS's and the loop's directory handles. */
#define LOOP_FILE_FH_FIRST (1ULL << 41)

static int atime_not_due(const double *a);

/* The bytes of the first page of a file (x86-64, arm64's 4 KiB kernels; a bigger page only
   covers more): a file no longer than this has no page but its first. */
#define FIRST_PAGE_BYTES 4096

/*
 * How the loop may answer a read-only open of `ino` as JS would (fuse3-ops.ts, page-cache.ts):
 * 1, keeping the page cache, when the file's attributes are the loop's, the kernel's pages are
 * of that size and mtime and a read is certainly not due to update atime (relatime.ts); 0,
 * dropping it, when the kernel's pages are of another size or mtime (JS drops them too), or
 * the file has one page at most (JS, when atime is due, drops the first page, which is all of
 * it; otherwise dropping them costs one read); -1: JS decides (no attributes, or a bigger file
 * whose atime may be due: JS drops only its first page).
 */
static int open_answer(struct session *s, fuse_ino_t ino) {
  struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
  int answer = -1;
  pthread_mutex_lock(&s->attrs->lock);
  if (slot->ino == ino && ino != 0 && S_ISREG((mode_t)slot->attr[1])) {
    const double *a = slot->attr;
    double mtime_ms = a[10] * 1000 + (double)((long)a[11] / 1000000);
    int seen = s->attrs->seen[ino % ATTR_SLOTS].ino == ino && s->attrs->seen[ino % ATTR_SLOTS].mtime_ms == mtime_ms &&
               s->attrs->seen[ino % ATTR_SLOTS].size == a[6];
    if (seen && atime_not_due(a)) answer = 1;
    else if (!seen || a[6] <= FIRST_PAGE_BYTES) answer = 0;
  }
  pthread_mutex_unlock(&s->attrs->lock);
  return answer;
}

static void ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  /* A read-only open (without O_TRUNC and a privilege to kill) of a file whose attributes the
     loop holds is answered here as JS would answer it (open_answer), with a handle of the loop's numbering,
     and handed to JS as it is (it registers the handle), in order, before any read through it.
     Not while a removal is on its way to JS: JS handles it before this open, and the file it
     would then find gone (it was not open when its last name went) could not be read. */
  struct session *s = sess(req);
  int kill = s->kill_priv.kill;
  int answer = (fi->flags & O_ACCMODE) == O_RDONLY && !(fi->flags & O_TRUNC) && !kill &&
                       __atomic_load_n(&s->removals_pending, __ATOMIC_ACQUIRE) == 0
                   ? open_answer(s, ino)
                   : -1;
  if (answer >= 0) {
    fi->fh = LOOP_FILE_FH_FIRST + (uint64_t)__atomic_fetch_add(&s->loop_open, 1, __ATOMIC_RELAXED);
    fi->keep_cache = answer;
    /* A read-only handle's close has nothing to report (as JS answers it: replyOpen's noFlush). */
    fi->noflush = 1;
    struct request *r = make(NULL, OP_OPEN); PUSH(r, ino); PUSH(r, fi->flags); PUSH(r, fi->fh);
    fuse_reply_open(req, fi);
    enqueue(s, r);
    return;
  }
  if (fi->flags & O_TRUNC) bytes_drop(s, ino);
  struct request *r = make(req, OP_OPEN); PUSH(r, ino); PUSH(r, fi->flags); PUSH(r, kill);
  enqueue(s, r);
}
static void ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi) {
  if (read_here(sess(req), req, ino, size, off)) return;
  struct request *r = make(req, OP_READ); PUSH(r, ino); PUSH(r, fi->fh); PUSH(r, size); PUSH(r, off);
  enqueue(sess(req), r);
}
/* Writes from this size on take the receive buffer over instead of copying out of it. */
#define TAKE_BUFFER_FROM (64 << 10)
/* The page size of the write-back (CHUNK_SIZE in JS): early writes cover exactly one page. */
#define PAGE_BYTES (1 << 20)

/* Takes `size` bytes of the write credit JS granted, if that much is left. */
static int take_credit(struct session *s, long long size) {
  long long credit = __atomic_load_n(&s->write_credit, __ATOMIC_ACQUIRE);
  while (credit >= size)
    if (__atomic_compare_exchange_n(&s->write_credit, &credit, credit - size, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return 1;
  return 0;
}

/* ---- What a write run needs of its session (write-run.h) ---- */

static int run_take_credit(void *ctx, long long bytes) { return take_credit(ctx, bytes); }

static long long run_file_size_max(void *ctx) {
  return __atomic_load_n(&((struct session *)ctx)->file_size_max, __ATOMIC_ACQUIRE);
}

static void run_started(void *ctx, uint64_t ino) { early_begin(ctx, (fuse_ino_t)ino); }

/* The run goes to JS answered already, like an early write: no request to reply to. */
static void run_hand_over(void *ctx, uint64_t ino, uint64_t fh, long long start, char *buf, size_t len,
                          const struct timespec *at) {
  struct session *s = ctx;
  /* Before JS can have handled it. The loop's attributes of the file, where it kept them through
     the run's writes (attrs_after_write), say whether the bytes are the whole file; else they
     wait for the attributes JS gives after it. */
  pthread_mutex_lock(&s->attrs->lock);
  contents_ran(&s->attrs->contents, ino, start, buf, len);
  struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
  if (slot->ino == ino) contents_attrs(&s->attrs->contents, slot->attr);
  pthread_mutex_unlock(&s->attrs->lock);
  struct request *r = make(NULL, OP_WRITE_RUN); PUSH(r, ino); PUSH(r, fh); PUSH(r, start);
  PUSH(r, at->tv_sec); PUSH(r, at->tv_nsec);
  r->data = buf;
  r->size = len;
  if (napi_call_threadsafe_function(s->tsfn, r, napi_tsfn_nonblocking) != napi_ok) {
    /* JS is going away: nobody would store it (as for a whole page answered early). */
    early_end(s, (fuse_ino_t)ino);
    __atomic_add_fetch(&s->write_credit, (long long)len, __ATOMIC_ACQ_REL);
    free_request(r);
  } else {
    __atomic_add_fetch(&s->early_answered, 1, __ATOMIC_RELAXED);
  }
}

/* How often a stream of answered writes looks up its writer's CPU (writer-cpu.h). */
#define FOLLOW_EVERY 64

/*
 * A write the loop answered into a run changed `ino` before JS has seen it. Where the loop knows
 * what JS will answer after it, its attributes follow the write: a regular file of one
 * write-back page at most (1 MiB), written where it has bytes or at its end (no hole), whose
 * blocks are its size's (the write-back counts a buffered page's bytes up to the size, and a
 * file stored whole allocates its size) takes the new size and blocks, and the write's time as
 * mtime and ctime (JS dates the run with it: OP_WRITE_RUN's time). A getattr, a lookup or a
 * link of the file just written (git links each object after its write) needs no JS then.
 * Otherwise its attributes go, as before; either way the table takes none from JS until JS has
 * handled the run (it counts as an early write on its way).
 */
static void attrs_after_write(struct session *s, fuse_ino_t ino, off_t off, size_t size, const struct timespec *at) {
  struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
  pthread_mutex_lock(&s->attrs->lock);
  if (slot->ino == ino) {
    double *a = slot->attr;
    double end = (double)off + (double)size, blocks = (double)(((long long)a[6] + 511) / 512);
    if (S_ISREG((mode_t)a[1]) && (double)off <= a[6] && end <= PAGE_BYTES && a[7] == blocks) {
      if (end > a[6]) a[6] = end;
      a[7] = (double)(((long long)a[6] + 511) / 512);
      a[10] = a[12] = (double)at->tv_sec;
      a[11] = a[13] = (double)at->tv_nsec;
    } else {
      slot->ino = 0;
    }
  }
  pthread_mutex_unlock(&s->attrs->lock);
}

static void ll_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi) {
  struct session *s = sess(req);
  int whole_page = size == PAGE_BYTES && off % PAGE_BYTES == 0;
  /* With FUSE_HANDLE_KILLPRIV_V2 the daemon removes what a write takes from a file (kill-priv.h):
     JS answers every write while a file may have a capability, and a write that kills
     setuid/setgid while a file may have them. */
  int kill = s->kill_priv.kill;
  int killpriv_v2 = __atomic_load_n(&s->kill_priv.on, __ATOMIC_ACQUIRE);
  int loop_may = !killpriv_v2 ||
                 (__atomic_load_n(&s->no_caps, __ATOMIC_ACQUIRE) &&
                  (!kill || __atomic_load_n(&s->no_setid, __ATOMIC_ACQUIRE)));
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  if (!whole_page && loop_may && run_join(&s->run, ino, fi->fh, buf, size, off, &now)) {
    attrs_after_write(s, ino, off, size, &now);
    /* Every FOLLOW_EVERY writes answered here: onto the writer's CPU (not at a stream's first
       write, so a small file's one write costs no look-up). */
    if (__atomic_load_n(&s->run.joined, __ATOMIC_RELAXED) % FOLLOW_EVERY == 0)
      writer_cpu_follow(&s->follow, (pid_t)fuse_req_ctx(req)->pid);
    fuse_reply_write(req, size);
    return;
  }
  bytes_drop(s, ino);
  struct request *r = make(req, OP_WRITE); PUSH(r, ino); PUSH(r, fi->fh); PUSH(r, off);
  /* The kill bits (fuse3-kill-priv.ts): 1 setuid/setgid, 2 the capability is the daemon's to remove. */
  PUSH(r, kill | (killpriv_v2 ? 2 : 0));
  r->size = size;
  if (size >= TAKE_BUFFER_FROM && s->recv_mem && !s->recv_taken && buf > s->recv_mem &&
      buf - s->recv_mem < 4096) {
    /* The bytes stay where the kernel put them: JS gets a view of the receive buffer (and
       keeps it as a page), the loop reads the next request into a new one. */
    r->data = (char *)buf;
    r->data_block = s->recv_mem;
    s->recv_taken = 1;
    /*
     * A write of exactly one whole, aligned page is answered here, before JS buffers it: JS
     * needs nothing of the file to take it (it becomes the page as it is, even where the old
     * bytes are still at the Durable Object), and the quota's room for it was set aside
     * (write_credit), so JS cannot refuse it. Every later request of this session reaches JS
     * after it (one loop, one queue); the fence waits until JS has handled every early write.
     */
    if (whole_page && loop_may && off + (long long)size <= s->file_size_max && take_credit(s, (long long)size)) {
      run_skip(&s->run, fi->fh, off, size);
      r->op = OP_WRITE_EARLY;
      r->req = NULL;
      r->count--; /* no kill bits: the loop answers only writes that need none (loop_may) */
      /* Pending first: an entry JS computed before this write is either dropped here or
         refused by cacheAttrs, which sees the write pending. */
      early_begin(s, ino);
      attrs_drop(s, ino);
      bytes_drop(s, ino);
      if (napi_call_threadsafe_function(s->tsfn, r, napi_tsfn_nonblocking) != napi_ok) {
        /* JS is going away: nobody would store it, so it is not answered as written. */
        early_end(s, ino);
        __atomic_add_fetch(&s->write_credit, (long long)size, __ATOMIC_ACQ_REL);
        free_request(r);
        fuse_reply_err(req, EIO);
      } else {
        __atomic_add_fetch(&s->early_answered, 1, __ATOMIC_RELAXED);
        fuse_reply_write(req, size);
      }
      answered(s);
      return;
    }
  } else {
    /* The receive buffer is reused once this returns: small data moves to JS in its own allocation. */
    r->data = malloc(size ? size : 1);
    memcpy(r->data, buf, size);
  }
  enqueue(s, r);
}
static void ll_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  /* A close stores nothing (the write-back stores a closed file in the background, and fsync
     and the fence wait for it): only an error JS keeps for a close needs JS. Writes answered
     here and not yet handled by JS cannot fail but for a quota lowered meanwhile, which the
     file's next close or fsync reports, as for a failed background store. */
  struct session *s = sess(req);
  if (!__atomic_load_n(&s->flush_wanted, __ATOMIC_ACQUIRE)) {
    __atomic_add_fetch(&s->loop_flush, 1, __ATOMIC_RELAXED);
    fuse_reply_err(req, 0);
    return;
  }
  struct request *r = make(req, OP_FLUSH); PUSH(r, ino); PUSH(r, fi->fh); enqueue(s, r);
}
static void ll_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  /* Nobody waits for a release (the kernel sends it after the last close, in the background) and
     its answer is not looked at: answered here, handed to JS as it is (in order, as a forget). */
  struct session *s = sess(req);
  run_disarm_fh(&s->run, fi->fh);
  writer_cpu_let_go(&s->follow);
  fuse_reply_err(req, 0);
  struct request *r = make(NULL, OP_RELEASE); PUSH(r, ino); PUSH(r, fi->fh); enqueue(s, r);
}
static void ll_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi) {
  struct request *r = make(req, OP_FSYNC); PUSH(r, ino); PUSH(r, fi->fh); PUSH(r, datasync); enqueue(sess(req), r);
}
/* Directory handles the loop numbers itself (ll_opendir): above every handle JS numbers. */
#define LOOP_DIR_FH_FIRST (1ULL << 40)
/* The relatime rule's "a day old" (relatime.ts) less a minute: the loop's clock and the daemon's
   may differ a little, and where it matters JS decides. */
#define RELATIME_LOOP_AGE_SEC (24 * 60 * 60 - 60)

/* Whether a readdir of a directory with these attributes (14 numbers) certainly leaves its
   atime alone (relatime.ts atimeDue is false): atime newer than mtime and ctime and less than
   a day old. */
static int atime_not_due(const double *a) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  int after_mtime = a[8] > a[10] || (a[8] == a[10] && a[9] > a[11]);
  int after_ctime = a[8] > a[12] || (a[8] == a[12] && a[9] > a[13]);
  return after_mtime && after_ctime && (double)now.tv_sec - a[8] < RELATIME_LOOP_AGE_SEC;
}

/* Whether an access of an inode with these attributes is certainly due to update its atime
   (relatime.ts atimeDue): atime not newer than mtime or ctime, whatever the clock says (a
   directory just made or changed). atimeDue's one exception, an atime equal to its clock's now
   to the nanosecond, is left aside: there the loop drops a listing JS would keep (one readdir
   more, never a stale one). */
int atime_due(const double *a) {
  int after_mtime = a[8] > a[10] || (a[8] == a[10] && a[9] > a[11]);
  int after_ctime = a[8] > a[12] || (a[8] == a[12] && a[9] > a[13]);
  return !after_mtime || !after_ctime;
}

static void ll_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  /* JS answers an opendir with a new handle, keeping the kernel's listing (FOPEN_CACHE_DIR and
     FOPEN_KEEP_CACHE) unless a readdir would be due to update atime. For a directory whose
     attributes the loop holds (exactly what JS would answer: see attr_cache) and whose atime is
     certainly not due, or certainly due (then without keeping the listing: its readdir must
     reach JS), the loop answers the same itself, with a handle of its own numbering, and hands
     the opendir to JS as it is (it takes the listing that handle reads), in order, before any
     readdir of it. */
  struct session *s = sess(req);
  struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
  int keeps = -1; /* 1 keep, 0 drop the kernel's listing, -1 JS decides */
  pthread_mutex_lock(&s->attrs->lock);
  if (slot->ino == ino && ino != 0 && S_ISDIR((mode_t)slot->attr[1]))
    keeps = atime_not_due(slot->attr) ? 1 : atime_due(slot->attr) ? 0 : -1;
  pthread_mutex_unlock(&s->attrs->lock);
  if (keeps < 0) {
    struct request *r = make(req, OP_OPENDIR); PUSH(r, ino); enqueue(s, r);
    return;
  }
  fi->fh = LOOP_DIR_FH_FIRST + (uint64_t)__atomic_fetch_add(&s->loop_opendir, 1, __ATOMIC_RELAXED);
  fi->keep_cache = keeps;
  fi->cache_readdir = 1;
  struct request *r = make(NULL, OP_OPENDIR); PUSH(r, ino); PUSH(r, fi->fh);
  fuse_reply_open(req, fi);
  enqueue(s, r);
}
static void ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi) {
  struct request *r = make(req, OP_READDIR); PUSH(r, ino); PUSH(r, fi->fh); PUSH(r, size); PUSH(r, off);
  enqueue(sess(req), r);
}
static void ll_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi) {
  struct request *r = make(req, OP_READDIRPLUS); PUSH(r, ino); PUSH(r, fi->fh); PUSH(r, size); PUSH(r, off);
  enqueue(sess(req), r);
}
static void ll_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
  /* As a release: the kernel sends it in the background after the directory's last close and
     does not look at the answer, so it is answered here and handed to JS as it is, in order. */
  struct session *s = sess(req);
  fuse_reply_err(req, 0);
  struct request *r = make(NULL, OP_RELEASEDIR); PUSH(r, ino); PUSH(r, fi->fh); enqueue(s, r);
}
static void ll_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi) {
  /* JS commits the mirror: answering here would claim durability nobody provided. */
  struct request *r = make(req, OP_FSYNCDIR); PUSH(r, ino); PUSH(r, fi->fh); PUSH(r, datasync);
  enqueue(sess(req), r);
}
static void ll_statfs(fuse_req_t req, fuse_ino_t ino) {
  struct request *r = make(req, OP_STATFS); PUSH(r, ino); enqueue(sess(req), r);
}
static void ll_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value, size_t size,
                        int flags) {
  struct request *r = make(req, OP_SETXATTR); PUSH(r, ino); PUSH(r, flags); r->s1 = dup_str(name);
  r->data = malloc(size ? size : 1);
  memcpy(r->data, value, size);
  r->size = size;
  enqueue(sess(req), r);
}
static void ll_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size) {
  /* The kernel asks for security.capability before every write syscall; while JS says no file
     has one, the answer needs no trip to JS. */
  struct session *s = sess(req);
  if (__atomic_load_n(&s->no_caps, __ATOMIC_ACQUIRE) && strcmp(name, "security.capability") == 0) {
    __atomic_add_fetch(&s->loop_getxattr, 1, __ATOMIC_RELAXED);
    fuse_reply_err(req, ENODATA);
    return;
  }
  struct request *r = make(req, OP_GETXATTR); PUSH(r, ino); PUSH(r, size); r->s1 = dup_str(name);
  enqueue(sess(req), r);
}
static void ll_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size) {
  struct request *r = make(req, OP_LISTXATTR); PUSH(r, ino); PUSH(r, size); enqueue(sess(req), r);
}
static void ll_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name) {
  struct request *r = make(req, OP_REMOVEXATTR); PUSH(r, ino); r->s1 = dup_str(name); enqueue(sess(req), r);
}
static void ll_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi) {
  if (create_here(sess(req), req, parent, name, mode, fi)) return;
  struct request *r = make(req, OP_CREATE); PUSH(r, parent); PUSH(r, mode); PUSH(r, fi->flags);
  r->s1 = dup_str(name); enqueue(sess(req), r);
}

/* copy_file_range(2) in one request: the daemon shares chunks (or copies) instead of the
   kernel splicing 64 KiB reads and writes through it. */
static void ll_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in, struct fuse_file_info *fi_in,
                               fuse_ino_t ino_out, off_t off_out, struct fuse_file_info *fi_out, size_t len,
                               int flags) {
  /* The target may share chunks still at the Durable Object now: JS decides again. */
  run_disarm_ino(&sess(req)->run, ino_out);
  bytes_drop(sess(req), ino_out);
  struct request *r = make(req, OP_COPY_FILE_RANGE);
  PUSH(r, ino_in); PUSH(r, fi_in->fh); PUSH(r, off_in); PUSH(r, ino_out); PUSH(r, fi_out->fh); PUSH(r, off_out);
  PUSH(r, len); PUSH(r, flags);
  enqueue(sess(req), r);
}

static const struct fuse_lowlevel_ops ops = {
  .init = ll_init, .lookup = ll_lookup, .forget = ll_forget, .forget_multi = ll_forget_multi,
  .getattr = ll_getattr, .setattr = ll_setattr, .readlink = ll_readlink, .mknod = ll_mknod, .mkdir = ll_mkdir,
  .unlink = ll_unlink, .rmdir = ll_rmdir, .symlink = ll_symlink, .rename = ll_rename, .link = ll_link,
  .open = ll_open, .read = ll_read, .write = ll_write, .flush = ll_flush, .release = ll_release,
  .fsync = ll_fsync, .opendir = ll_opendir, .readdir = ll_readdir, .readdirplus = ll_readdirplus,
  .releasedir = ll_releasedir,
  .fsyncdir = ll_fsyncdir, .statfs = ll_statfs, .setxattr = ll_setxattr, .getxattr = ll_getxattr,
  .listxattr = ll_listxattr, .removexattr = ll_removexattr, .create = ll_create,
  .copy_file_range = ll_copy_file_range,
};

/* ---- JS side ---- */

#define CHECK(call) do { if ((call) != napi_ok) { napi_throw_error(env, NULL, #call " failed"); return NULL; } } while (0)

/* Finalizer of a write's buffer: the hint is the allocation it lies in (a receive buffer, back
   to the pool), if any. */
static void free_data(napi_env env, void *data, void *hint) {
  (void)env;
  if (hint) pool_put(hint);
  else free(data);
}

static void call_js(napi_env env, napi_value handler, void *context, void *data) {
  struct session *s = context;
  struct request *r = data;
  /* An early write counts as pending until the handler has returned (it buffered the page). */
  int early = r->op == OP_WRITE_EARLY || r->op == OP_WRITE_RUN;
  fuse_ino_t early_ino = early ? (fuse_ino_t)r->n[0] : 0;
  /* So does a change of names the loop answered, and the attribute slots it changed take JS's
     again once its handler runs: what JS computes from then on has the change (JS runs one
     request at a time). */
  int loop_answered = r->loop_answered;
  int unlink_answered = r->op == OP_UNLINK_ANSWERED;
  if (env == NULL) {
    if (early) early_end(s, early_ino);
    loop_answer_dropped(s, r);
    if (removes_name(r->op)) __atomic_sub_fetch(&s->removals_pending, 1, __ATOMIC_ACQ_REL);
    if (r->req) {
      struct session *s = fuse_req_userdata(r->req);
      fuse_reply_err(r->req, EIO);
      answered(s);
    }
    free_request(r);
    return;
  }
  napi_value argv[24];
  size_t argc = 0;
  napi_create_uint32(env, r->op, &argv[argc++]);
  if (r->req) napi_create_external(env, r->req, NULL, NULL, &argv[argc]);
  else napi_get_null(env, &argv[argc]);
  argc++;
  napi_create_uint32(env, r->uid, &argv[argc++]);
  napi_create_uint32(env, r->gid, &argv[argc++]);
  napi_create_uint32(env, r->pid, &argv[argc++]);
  napi_create_uint32(env, r->umask, &argv[argc++]);
  for (int i = 0; i < r->count; i++) napi_create_double(env, r->n[i], &argv[argc++]);
  if (r->s1) napi_create_string_utf8(env, r->s1, NAPI_AUTO_LENGTH, &argv[argc++]);
  if (r->s2) napi_create_string_utf8(env, r->s2, NAPI_AUTO_LENGTH, &argv[argc++]);
  if (r->data) {
    napi_value buf;
    if (napi_create_external_buffer(env, r->size, r->data, free_data, r->data_block, &buf) != napi_ok) {
      napi_create_buffer_copy(env, r->size, r->data, NULL, &buf);
      free(r->data_block ? r->data_block : r->data);
    }
    argv[argc++] = buf;
  }
  int removal = removes_name(r->op);
  slot_changes_end(s, r);
  free(r->s1); free(r->s2); free(r);
  napi_value undefined, result;
  napi_get_undefined(env, &undefined);
  if (napi_call_function(env, undefined, handler, argc, argv, &result) == napi_pending_exception) {
    napi_value err;
    napi_get_and_clear_last_exception(env, &err);
    fprintf(stderr, "computerd fuse3: a request handler threw\n");
  }
  if (early) early_end(s, early_ino);
  if (loop_answered) __atomic_sub_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
  /* The handler dropped the name the loop's unlink removed once more (an earlier request's
     handler may have put it back meanwhile): the loop answers lookups of found names again. */
  if (unlink_answered) __atomic_sub_fetch(&s->unlinks_pending, 1, __ATOMIC_ACQ_REL);
  /* The handler changed the names and dropped the attributes it changes before it returned. */
  if (removal) __atomic_sub_fetch(&s->removals_pending, 1, __ATOMIC_ACQ_REL);
}

/* fuse_session_loop, except that a request may keep its receive buffer (big writes). */
static void receive_loop(struct session *s) {
  struct fuse_buf fbuf = { .mem = NULL };
  while (!fuse_session_exited(s->se)) {
    /* A buffer a big write took over is replaced from the pool once this session's own size
       is known; NULL lets libfuse allocate one. */
    int allocates = fbuf.mem == NULL;
    if (allocates && s->recv_size > 0) {
      fbuf.mem = pool_take(s->recv_size);
      allocates = fbuf.mem == NULL;
    }
    int res = fuse_session_receive_buf(s->se, &fbuf);
    if (allocates && fbuf.mem) {
      size_t size = malloc_usable_size(fbuf.mem);
      if (size > s->recv_size) s->recv_size = size;
      pool_count_fresh_receive();
    }
    if (res == -EINTR) continue;
    if (res <= 0) break;
    s->recv_mem = fbuf.mem;
    s->recv_taken = 0;
    if (!(fbuf.flags & FUSE_BUF_IS_FD)) kill_priv_peek(&s->kill_priv, fbuf.mem, (size_t)res);
    fuse_session_process_buf(s->se, &fbuf);
    if (s->recv_taken) fbuf.mem = NULL;
    s->recv_mem = NULL;
  }
  free(fbuf.mem);
  fuse_session_reset(s->se);
}

/* libfuse's own reads and writes of /dev/fuse, through its custom I/O hook: the INIT reply
   gets FUSE_HANDLE_KILLPRIV_V2 on its way (kill-priv.h). */
static ssize_t io_read(int fd, void *buf, size_t len, void *userdata) {
  (void)userdata;
  return read(fd, buf, len);
}
static ssize_t io_writev(int fd, struct iovec *iov, int count, void *userdata) {
  kill_priv_reply(&((struct session *)userdata)->kill_priv, iov, count);
  return writev(fd, iov, count);
}
static const struct fuse_custom_io custom_io = {.read = io_read, .writev = io_writev};

static void *loop_thread(void *arg) {
  struct session *s = arg;
  if (wake_signal) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, wake_signal);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
  }
  receive_loop(s);
  /* Writes answered into a run reach JS before it hears that the loop has ended. */
  run_flush(&s->run);
  __atomic_store_n(&s->loop_done, 1, __ATOMIC_RELEASE);
  struct request *r = make(NULL, OP_EXIT);
  napi_call_threadsafe_function(s->tsfn, r, napi_tsfn_blocking);
  napi_release_threadsafe_function(s->tsfn, napi_tsfn_release);
  return NULL;
}

static struct session *get_session(napi_env env, napi_value v) {
  void *p = NULL;
  if (napi_get_value_external(env, v, &p) != napi_ok) return NULL;
  return p;
}

static void free_session(struct session *s) {
  if (s->attrs) pthread_mutex_destroy(&s->attrs->lock);
  if (s->attrs) contents_destroy(&s->attrs->contents);
  free(s->attrs);
  free(s);
}

static void finish(struct session *s) {
  fuse_session_destroy(s->se);
  s->se = NULL;
  run_destroy(&s->run);
  names_destroy(&s->names);
  entries_destroy(&s->entries);
  creates_destroy(&s->creates);
  if (s->released) free_session(s);
}

/* The JS handle is gone: free the struct now if the session was destroyed, else at finish(). */
static void session_released(napi_env env, void *data, void *hint) {
  (void)env; (void)hint;
  struct session *s = data;
  s->released = 1;
  if (s->joined && !s->se) free_session(s);
}

/* mount(mountPoint: string, options: string, handler: Function) -> session */
static napi_value js_mount(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char mountpoint[4096], options[4096];
  size_t len;
  CHECK(napi_get_value_string_utf8(env, argv[0], mountpoint, sizeof mountpoint, &len));
  CHECK(napi_get_value_string_utf8(env, argv[1], options, sizeof options, &len));
  struct session *s = calloc(1, sizeof *s);
  s->flush_wanted = 1; /* until JS says it keeps no error for a close */
  s->attrs = calloc(1, sizeof *s->attrs);
  if (!s->attrs) {
    free_session(s);
    napi_throw_error(env, "ENOMEM", "no memory for the attribute table");
    return NULL;
  }
  pthread_mutex_init(&s->attrs->lock, NULL);
  contents_init(&s->attrs->contents);
  names_init(&s->names);
  entries_init(&s->entries);
  creates_init(&s->creates);
  if (run_init(&s->run, (struct run_ops){.ctx = s, .take_credit = run_take_credit, .file_size_max = run_file_size_max,
                                         .started = run_started, .hand_over = run_hand_over}) != 0) {
    free_session(s);
    napi_throw_error(env, NULL, "pthread_create failed (the write runs' flusher)");
    return NULL;
  }
  char *args[] = {"computerd", "-o", options, NULL};
  struct fuse_args fargs = FUSE_ARGS_INIT(options[0] ? 3 : 1, args);
  s->se = fuse_session_new(&fargs, &ops, sizeof ops, s);
  if (!s->se) {
    run_destroy(&s->run);
    free_session(s);
    napi_throw_error(env, "EINVAL", "fuse_session_new failed (bad options?)");
    return NULL;
  }
  if (fuse_session_mount(s->se, mountpoint) != 0) {
    fuse_session_destroy(s->se);
    run_destroy(&s->run);
    free_session(s);
    napi_throw_error(env, "EIO", "fuse_session_mount failed");
    return NULL;
  }
  /* Before the loop reads INIT: its reply goes through io_writev. Without the hook the mount
     works as before, one capability probe per write syscall. */
  s->kill_priv.wanted = fuse_session_custom_io(s->se, &custom_io, fuse_session_fd(s->se)) == 0;
  napi_value name;
  napi_create_string_utf8(env, "computerd-fuse3", NAPI_AUTO_LENGTH, &name);
  CHECK(napi_create_threadsafe_function(env, argv[2], NULL, name, 0, 1, NULL, NULL, s, call_js, &s->tsfn));
  s->running = 1;
  if (pthread_create(&s->thread, NULL, loop_thread, s) != 0) {
    napi_release_threadsafe_function(s->tsfn, napi_tsfn_abort);
    fuse_session_unmount(s->se);
    fuse_session_destroy(s->se);
    run_destroy(&s->run);
    free_session(s);
    napi_throw_error(env, NULL, "pthread_create failed");
    return NULL;
  }
  napi_value result;
  CHECK(napi_create_external(env, s, session_released, NULL, &result));
  return result;
}

/*
 * unmount(session): ends the loop (the handler then gets OP_EXIT). The mount is detached;
 * when no process uses it the kernel ends the connection and the loop's read returns. A
 * process still holding a file open keeps the connection, so the read is also interrupted
 * with WAKE_SIGNAL. The signal can land just before the read starts: call again (each call
 * only wakes) until OP_EXIT arrives.
 */
static napi_value js_unmount(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  struct session *s = get_session(env, argv[0]);
  if (!s || !s->se || s->joined) return NULL;
  if (s->running) {
    s->running = 0;
    fuse_session_exit(s->se);
    fuse_session_unmount(s->se);
  }
  if (wake_signal && !__atomic_load_n(&s->loop_done, __ATOMIC_ACQUIRE)) pthread_kill(s->thread, wake_signal);
  return NULL;
}

/*
 * destroy(session): after OP_EXIT; joins the loop thread. The libfuse session goes now, or
 * with the last answer to a request JS still holds (a reply after this is still safe).
 */
static napi_value js_destroy(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  struct session *s = get_session(env, argv[0]);
  if (!s || s->joined) return NULL;
  pthread_join(s->thread, NULL);
  s->joined = 1;
  s->destroying = 1;
  if (__atomic_load_n(&s->pending, __ATOMIC_ACQUIRE) == 0) finish(s);
  return NULL;
}

/* The session a (session, ...) call names, with up to `n` arguments into argv (NULL when it is not one). */
static struct session *session_arg(napi_env env, napi_callback_info info, size_t n, napi_value *argv) {
  size_t argc = n;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return NULL;
  return get_session(env, argv[0]);
}

/* (session, bool) -> sets one of the flags the loop reads (an int field of the session). */
static napi_value set_flag(napi_env env, napi_callback_info info, size_t field) {
  napi_value argv[2];
  struct session *s = session_arg(env, info, 2, argv);
  bool on = false;
  napi_get_value_bool(env, argv[1], &on);
  if (s) __atomic_store_n((int *)((char *)s + field), on ? 1 : 0, __ATOMIC_RELEASE);
  return NULL;
}

/* setNoCapabilities(session, bool): whether the loop answers security.capability probes itself. */
static napi_value js_set_no_caps(napi_env env, napi_callback_info info) {
  return set_flag(env, info, offsetof(struct session, no_caps));
}

/* setNoSetid(session, bool): whether no file has setuid or setgid (writes that kill them then need no JS). */
static napi_value js_set_no_setid(napi_env env, napi_callback_info info) {
  return set_flag(env, info, offsetof(struct session, no_setid));
}

/* killPriv(session) -> bool: whether FUSE_HANDLE_KILLPRIV_V2 was negotiated (kill-priv.h). */
static napi_value js_kill_priv(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  struct session *s = session_arg(env, info, 1, argv);
  napi_get_boolean(env, s && __atomic_load_n(&s->kill_priv.on, __ATOMIC_ACQUIRE), &result);
  return result;
}

/* setFlushWanted(session, bool): whether every flush goes to JS (it keeps an error for a close). */
static napi_value js_set_flush_wanted(napi_env env, napi_callback_info info) {
  return set_flag(env, info, offsetof(struct session, flush_wanted));
}

static double num(napi_env env, napi_value v);

/*
 * cacheAttrs(session, attrs, count, attrTimeout): the current attributes of `count` inodes (14
 * numbers each), exactly what a getattr of each would answer now. Entries with nlink 0 (a
 * hidden file, "." and ".." of a listing) are left out, and so is an inode an early write or
 * run is on its way to JS for (JS computed them before it).
 */
static napi_value js_cache_attrs(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  struct session *s = session_arg(env, info, 4, argv);
  void *data = NULL;
  size_t length = 0;
  napi_typedarray_type type;
  napi_get_typedarray_info(env, argv[1], &type, &length, &data, NULL, NULL);
  size_t count = (size_t)num(env, argv[2]);
  if (!s || type != napi_float64_array || length < count * 14) return NULL;
  double timeout = num(env, argv[3]);
  pthread_mutex_lock(&s->attrs->lock);
  s->attrs->timeout = timeout;
  for (size_t i = 0; i < count; i++) {
    const double *a = (const double *)data + 14 * i;
    fuse_ino_t ino = (fuse_ino_t)a[0];
    if (ino == 0 || a[2] == 0 || __atomic_load_n(&s->attrs->early[ino % ATTR_SLOTS], __ATOMIC_ACQUIRE) != 0) continue;
    struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
    slot->ino = ino;
    s->attrs->filled = 1;
    memcpy(slot->attr, a, sizeof slot->attr);
    contents_attrs(&s->attrs->contents, a);
  }
  pthread_mutex_unlock(&s->attrs->lock);
  return NULL;
}

/* dropAttr(session, ino): forgets one inode's attributes (they are about to change). */
static napi_value js_drop_attr(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  struct session *s = session_arg(env, info, 2, argv);
  if (!s) return NULL;
  /* Not the bytes the loop kept: JS drops attributes as it handles changes the loop has seen
     (and dropped the bytes of) already, a run among them, and after a background store. */
  attrs_drop(s, (fuse_ino_t)num(env, argv[1]));
  return NULL;
}

/* setPagesSeen(session, ino, mtimeMs, size): what the kernel's page cache of `ino` now holds
   (page-cache.ts); a NaN mtimeMs: unknown (the loop then leaves the file's opens to JS). */
static napi_value js_set_pages_seen(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  struct session *s = session_arg(env, info, 4, argv);
  if (!s) return NULL;
  fuse_ino_t ino = (fuse_ino_t)num(env, argv[1]);
  double mtime_ms = num(env, argv[2]);
  pthread_mutex_lock(&s->attrs->lock);
  if (mtime_ms == mtime_ms) {
    s->attrs->seen[ino % ATTR_SLOTS].ino = ino;
    s->attrs->seen[ino % ATTR_SLOTS].mtime_ms = mtime_ms;
    s->attrs->seen[ino % ATTR_SLOTS].size = num(env, argv[3]);
  } else if (s->attrs->seen[ino % ATTR_SLOTS].ino == ino) {
    s->attrs->seen[ino % ATTR_SLOTS].ino = 0;
  }
  pthread_mutex_unlock(&s->attrs->lock);
  return NULL;
}

/* clearAttrs(session): forgets every inode's attributes (remote changes). */
static napi_value js_clear_attrs(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  struct session *s = session_arg(env, info, 1, argv);
  if (!s) return NULL;
  pthread_mutex_lock(&s->attrs->lock);
  if (s->attrs->filled) {
    for (int i = 0; i < ATTR_SLOTS; i++) s->attrs->slots[i].ino = 0;
    s->attrs->filled = 0;
  }
  contents_clear(&s->attrs->contents);
  pthread_mutex_unlock(&s->attrs->lock);
  return NULL;
}

/* grantWrites(session, bytes, fileSizeMax): adds to the room early writes may take (see ll_write). */
static napi_value js_grant_writes(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  struct session *s = session_arg(env, info, 3, argv);
  if (!s) return NULL;
  __atomic_store_n(&s->file_size_max, (long long)num(env, argv[2]), __ATOMIC_RELEASE);
  __atomic_add_fetch(&s->write_credit, (long long)num(env, argv[1]), __ATOMIC_ACQ_REL);
  return NULL;
}

/* revokeWrites(session) -> bytes: takes back the room early writes have not taken yet. */
static napi_value js_revoke_writes(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  struct session *s = session_arg(env, info, 1, argv);
  long long left = s ? __atomic_exchange_n(&s->write_credit, 0, __ATOMIC_ACQ_REL) : 0;
  napi_create_double(env, (double)left, &result);
  return result;
}

/* armWriteRun(session, ino, fh, next): the listener took a write through fh ending at next; the
   loop may answer the writes that continue it (write-run.h). */
static napi_value js_arm_write_run(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  struct session *s = session_arg(env, info, 4, argv);
  if (s && s->se) run_arm(&s->run, (uint64_t)num(env, argv[1]), (uint64_t)num(env, argv[2]), (long long)num(env, argv[3]));
  return NULL;
}

/* disarmWriteRuns(session): no write joins a run until the listener arms again (a remote change). */
static napi_value js_disarm_write_runs(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  struct session *s = session_arg(env, info, 1, argv);
  if (s && s->se) run_disarm(&s->run);
  return NULL;
}

/* flushWriteRun(session): hands the writes answered into a run to the listener now (the fence). */
static napi_value js_flush_write_run(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  struct session *s = session_arg(env, info, 1, argv);
  if (s && s->se) run_flush(&s->run);
  return NULL;
}

/* holdNames(session, ino, names[], negativeTimeout): the loop answers misses in directory ino,
   whose names these are, until told otherwise (loop-names.h). */
static napi_value js_hold_names(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  struct session *s = session_arg(env, info, 4, argv);
  uint32_t count = 0;
  if (!s || napi_get_array_length(env, argv[2], &count) != napi_ok) return NULL;
  char **names = calloc(count ? count : 1, sizeof *names);
  int ok = names != NULL;
  for (uint32_t i = 0; ok && i < count; i++) {
    napi_value v;
    size_t len = 0;
    ok = napi_get_element(env, argv[2], i, &v) == napi_ok &&
         napi_get_value_string_utf8(env, v, NULL, 0, &len) == napi_ok && (names[i] = malloc(len + 1)) != NULL &&
         napi_get_value_string_utf8(env, v, names[i], len + 1, &len) == napi_ok;
  }
  if (ok && s->se) names_hold(&s->names, (uint64_t)num(env, argv[1]), (const char *const *)names, count, num(env, argv[3]));
  for (uint32_t i = 0; names && i < count; i++) free(names[i]);
  free(names);
  return NULL;
}

/* holdsNames(session, ino) -> bool */
static napi_value js_holds_names(napi_env env, napi_callback_info info) {
  napi_value argv[2], result;
  struct session *s = session_arg(env, info, 2, argv);
  napi_get_boolean(env, s && names_held(&s->names, (uint64_t)num(env, argv[1])), &result);
  return result;
}

/* addName(session, ino, name): a request adds name to directory ino (told before its answer). */
static napi_value js_add_name(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  struct session *s = session_arg(env, info, 3, argv);
  size_t len = 0;
  if (!s || !s->se || napi_get_value_string_utf8(env, argv[2], NULL, 0, &len) != napi_ok) return NULL;
  char *name = malloc(len + 1);
  if (name && napi_get_value_string_utf8(env, argv[2], name, len + 1, &len) == napi_ok)
    names_add(&s->names, (uint64_t)num(env, argv[1]), name);
  else if (s)
    names_drop(&s->names, (uint64_t)num(env, argv[1])); /* it must never miss a name */
  free(name);
  return NULL;
}

/* setLoopCreates(session, enabled, idLo, idHi, direct, entryTimeout, attrTimeout): the loop
   answers creates by callers with ids in [idLo, idHi) (loop-creates.h), or none. */
static napi_value js_set_loop_creates(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  struct session *s = session_arg(env, info, 7, argv);
  bool enabled = false, direct = false;
  if (!s) return NULL;
  napi_get_value_bool(env, argv[1], &enabled);
  napi_get_value_bool(env, argv[4], &direct);
  creates_set(&s->creates, enabled, (uint64_t)num(env, argv[2]), (uint64_t)num(env, argv[3]), direct,
              num(env, argv[5]), num(env, argv[6]));
  return NULL;
}

/* grantInodes(session, first, count): the loop's creates take their inode numbers from these
   (reserved by JS), instead of what was left. */
static napi_value js_grant_inodes(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  struct session *s = session_arg(env, info, 3, argv);
  if (s) creates_grant(&s->creates, (uint64_t)num(env, argv[1]), (uint64_t)num(env, argv[2]));
  return NULL;
}

/* inodesLeft(session) -> number: the inode numbers the loop's creates have not taken yet. */
static napi_value js_inodes_left(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  struct session *s = session_arg(env, info, 1, argv);
  napi_create_double(env, s ? (double)creates_left(&s->creates) : 0, &result);
  return result;
}

/* dropNames(session, ino) / clearNames(session): the loop no longer answers misses there / anywhere. */
static napi_value js_drop_names(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  struct session *s = session_arg(env, info, 2, argv);
  if (s) names_drop(&s->names, (uint64_t)num(env, argv[1]));
  return NULL;
}
static napi_value js_clear_names(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  struct session *s = session_arg(env, info, 1, argv);
  if (s) names_clear(&s->names);
  return NULL;
}

/* Copies JS string `v` into `name` (NAME_BYTES_MAX + 1 bytes); 0 when it is longer. */
static int name_arg(napi_env env, napi_value v, char *name) {
  size_t len = 0;
  return napi_get_value_string_utf8(env, v, NULL, 0, &len) == napi_ok && len <= NAME_BYTES_MAX &&
         napi_get_value_string_utf8(env, v, name, NAME_BYTES_MAX + 1, &len) == napi_ok;
}

/* putEntry(session, parent, name, ino, entryTimeout): JS answers name in directory parent as
   inode ino (told before its answer); the loop answers its next lookups (loop-entries.h). */
static napi_value js_put_entry(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  struct session *s = session_arg(env, info, 5, argv);
  char name[NAME_BYTES_MAX + 1];
  if (s && s->se && name_arg(env, argv[2], name))
    entries_put(&s->entries, (uint64_t)num(env, argv[1]), name, (uint64_t)num(env, argv[3]), num(env, argv[4]));
  return NULL;
}

/* dropEntry(session, parent, name): name in directory parent is about to go or change. */
static napi_value js_drop_entry(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  struct session *s = session_arg(env, info, 3, argv);
  char name[NAME_BYTES_MAX + 1];
  if (s && name_arg(env, argv[2], name))
    entries_drop(&s->entries, (uint64_t)num(env, argv[1]), name);
  return NULL;
}

/* clearEntries(session): every name may have changed (remote changes). */
static napi_value js_clear_entries(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  struct session *s = session_arg(env, info, 1, argv);
  if (s) entries_clear(&s->entries);
  return NULL;
}

/* earlyWrites(session) -> Float64Array [answered since mount, not yet handled by JS (with the loop's creates)]. */
static napi_value js_early_writes(napi_env env, napi_callback_info info) {
  napi_value argv[1], buffer, array;
  struct session *s = session_arg(env, info, 1, argv);
  double *counts = NULL;
  CHECK(napi_create_arraybuffer(env, 2 * sizeof(double), (void **)&counts, &buffer));
  counts[0] = s ? (double)__atomic_load_n(&s->early_answered, __ATOMIC_ACQUIRE) : 0;
  counts[1] = s ? (double)__atomic_load_n(&s->early_pending, __ATOMIC_ACQUIRE) : 0;
  CHECK(napi_create_typedarray(env, napi_float64_array, 2, buffer, 0, &array));
  return array;
}

/*
 * sha256(bytes) -> Promise<hex>: hashes on the thread pool, reading the bytes where they are
 * (WebCrypto's digest first copies its input on the JS thread: a fresh MiB, faulted in and
 * zeroed again on free, for every page the write-back hashes). The typed array is referenced
 * until the hash is done, so its memory stays; a page changed meanwhile drops the result
 * (dirty-file.ts). OpenSSL's one-shot SHA256 comes from the Node binary (weak: absent, the
 * export is missing and the write-back uses WebCrypto).
 */
extern unsigned char *SHA256(const unsigned char *d, size_t n, unsigned char *md) __attribute__((weak));
struct digest_job {
  napi_ref ref;
  const unsigned char *data;
  size_t length;
  unsigned char md[32];
  napi_deferred deferred;
  napi_async_work work;
};
static void digest_execute(napi_env env, void *p) {
  (void)env;
  struct digest_job *d = p;
  SHA256(d->data, d->length, d->md);
}
static void digest_complete(napi_env env, napi_status status, void *p) {
  struct digest_job *d = p;
  static const char digits[] = "0123456789abcdef";
  char hex[64];
  for (int i = 0; i < 32; i++) { hex[2 * i] = digits[d->md[i] >> 4]; hex[2 * i + 1] = digits[d->md[i] & 15]; }
  napi_value value;
  if (status == napi_ok && napi_create_string_latin1(env, hex, 64, &value) == napi_ok)
    napi_resolve_deferred(env, d->deferred, value);
  else {
    napi_get_undefined(env, &value);
    napi_reject_deferred(env, d->deferred, value);
  }
  napi_delete_reference(env, d->ref);
  napi_delete_async_work(env, d->work);
  free(d);
}
static napi_value js_sha256(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], promise, name;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  napi_typedarray_type type;
  size_t length = 0;
  void *data = NULL;
  if (argc < 1 || napi_get_typedarray_info(env, argv[0], &type, &length, &data, NULL, NULL) != napi_ok ||
      type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, "sha256: a Uint8Array");
    return NULL;
  }
  struct digest_job *d = calloc(1, sizeof *d);
  d->data = data;
  d->length = length;
  CHECK(napi_create_reference(env, argv[0], 1, &d->ref));
  CHECK(napi_create_promise(env, &d->deferred, &promise));
  napi_create_string_utf8(env, "computerd-fuse3-sha256", NAPI_AUTO_LENGTH, &name);
  CHECK(napi_create_async_work(env, NULL, name, digest_execute, digest_complete, d, &d->work));
  CHECK(napi_queue_async_work(env, d->work));
  return promise;
}

/* receiveBuffers() -> Float64Array [receive buffers taken from the pool, receive buffers
   allocated, buffers pooled now, write-run pages faulted in at once]: the buffers the loops of
   this process write into (buffer-pool.h). */
static napi_value js_receive_buffers(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value buffer, array;
  double *counts = NULL;
  CHECK(napi_create_arraybuffer(env, 4 * sizeof(double), (void **)&counts, &buffer));
  struct pool_counts c = pool_counts();
  counts[0] = (double)c.receive_reused;
  counts[1] = (double)c.receive_fresh;
  counts[2] = (double)c.pooled;
  counts[3] = (double)c.populated;
  CHECK(napi_create_typedarray(env, napi_float64_array, 4, buffer, 0, &array));
  return array;
}

/* loopAnswers(session) -> Float64Array [capability probes, flushes, getattrs, writes joined into
   runs, lookup misses, opendirs, opens, creates, unlinks, mkdirs, links, reads, setattrs of
   times] the loop answered without JS. */
static napi_value js_loop_answers(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], buffer, array;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  struct session *s = get_session(env, argv[0]);
  double *counts = NULL;
  CHECK(napi_create_arraybuffer(env, 13 * sizeof(double), (void **)&counts, &buffer));
  counts[0] = s ? (double)__atomic_load_n(&s->loop_getxattr, __ATOMIC_RELAXED) : 0;
  counts[1] = s ? (double)__atomic_load_n(&s->loop_flush, __ATOMIC_RELAXED) : 0;
  counts[2] = s ? (double)__atomic_load_n(&s->loop_getattr, __ATOMIC_RELAXED) : 0;
  counts[3] = s ? (double)__atomic_load_n(&s->run.joined, __ATOMIC_RELAXED) : 0;
  counts[4] = s ? (double)__atomic_load_n(&s->names.answered, __ATOMIC_RELAXED) : 0;
  counts[5] = s ? (double)__atomic_load_n(&s->loop_opendir, __ATOMIC_RELAXED) : 0;
  counts[6] = s ? (double)__atomic_load_n(&s->loop_open, __ATOMIC_RELAXED) : 0;
  counts[7] = s ? (double)__atomic_load_n(&s->creates.answered, __ATOMIC_RELAXED) : 0;
  counts[8] = s ? (double)__atomic_load_n(&s->loop_unlink, __ATOMIC_RELAXED) : 0;
  counts[9] = s ? (double)__atomic_load_n(&s->loop_mkdir, __ATOMIC_RELAXED) : 0;
  counts[10] = s ? (double)__atomic_load_n(&s->loop_link, __ATOMIC_RELAXED) : 0;
  counts[11] = s ? (double)__atomic_load_n(&s->attrs->contents.answered, __ATOMIC_RELAXED) : 0;
  counts[12] = s ? (double)__atomic_load_n(&s->loop_setattr, __ATOMIC_RELAXED) : 0;
  CHECK(napi_create_typedarray(env, napi_float64_array, 13, buffer, 0, &array));
  return array;
}

static fuse_req_t get_req(napi_env env, napi_value v) {
  void *p = NULL;
  napi_get_value_external(env, v, &p);
  return p;
}

static double num(napi_env env, napi_value v) {
  double d = 0;
  napi_get_value_double(env, v, &d);
  return d;
}

/* Attributes cross as a Float64Array: ino, mode, nlink, uid, gid, rdev, size, blocks,
   atime s, ns, mtime s, ns, ctime s, ns. */
void stat_from(const double *a, struct stat *st) {
  memset(st, 0, sizeof *st);
  st->st_ino = (ino_t)a[0]; st->st_mode = (mode_t)a[1]; st->st_nlink = (nlink_t)a[2];
  st->st_uid = (uid_t)a[3]; st->st_gid = (gid_t)a[4]; st->st_rdev = (dev_t)a[5];
  st->st_size = (off_t)a[6]; st->st_blocks = (blkcnt_t)a[7]; st->st_blksize = 4096;
  st->st_atim.tv_sec = (time_t)a[8]; st->st_atim.tv_nsec = (long)a[9];
  st->st_mtim.tv_sec = (time_t)a[10]; st->st_mtim.tv_nsec = (long)a[11];
  st->st_ctim.tv_sec = (time_t)a[12]; st->st_ctim.tv_nsec = (long)a[13];
}

static void fill_stat(napi_env env, napi_value arr, struct stat *st) {
  void *data = NULL;
  size_t length = 0;
  napi_typedarray_type type;
  napi_get_typedarray_info(env, arr, &type, &length, &data, NULL, NULL);
  memset(st, 0, sizeof *st);
  if (type != napi_float64_array || length < 14) return;
  stat_from(data, st);
}

/* Every reply function answers one request make() counted: the session learns it after the reply. */
#define ARGS(n) size_t argc = n; napi_value argv[n]; CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL)); \
  fuse_req_t req = get_req(env, argv[0]); \
  struct session *req_session = fuse_req_userdata(req)
#define ret_int(env, r) replied(env, req_session, (r))

static napi_value replied(napi_env env, struct session *s, int r) {
  answered(s);
  napi_value v;
  napi_create_int32(env, r, &v);
  return v;
}

/* replyErr(req, errno) — 0 for success of ops without data. */
static napi_value js_reply_err(napi_env env, napi_callback_info info) {
  ARGS(2);
  return ret_int(env, fuse_reply_err(req, (int)num(env, argv[1])));
}

static void fill_entry(napi_env env, napi_value *argv, struct fuse_entry_param *e) {
  memset(e, 0, sizeof *e);
  fill_stat(env, argv[0], &e->attr);
  e->ino = e->attr.st_ino;
  e->generation = 1;
  e->entry_timeout = num(env, argv[1]);
  e->attr_timeout = num(env, argv[2]);
}

/* replyEntry(req, attr, entryTimeout, attrTimeout); attr ino 0 = a cached miss. */
static napi_value js_reply_entry(napi_env env, napi_callback_info info) {
  ARGS(4);
  struct fuse_entry_param e;
  fill_entry(env, argv + 1, &e);
  return ret_int(env, fuse_reply_entry(req, &e));
}

/* replyCreate(req, attr, entryTimeout, attrTimeout, fh) */
static napi_value js_reply_create(napi_env env, napi_callback_info info) {
  ARGS(6);
  struct fuse_entry_param e;
  fill_entry(env, argv + 1, &e);
  struct fuse_file_info fi;
  memset(&fi, 0, sizeof fi);
  fi.fh = (uint64_t)num(env, argv[4]);
  bool direct = false;
  if (argc >= 6) napi_get_value_bool(env, argv[5], &direct);
  fi.direct_io = direct;
  return ret_int(env, fuse_reply_create(req, &e, &fi));
}

/* replyAttr(req, attr, attrTimeout) */
static napi_value js_reply_attr(napi_env env, napi_callback_info info) {
  ARGS(3);
  struct stat st;
  fill_stat(env, argv[1], &st);
  return ret_int(env, fuse_reply_attr(req, &st, num(env, argv[2])));
}

/* replyOpen(req, fh, keepCache[, cacheDir[, direct[, noFlush]]]) — cacheDir (opendir only): the
   kernel keeps the listing it reads in its own cache (FOPEN_CACHE_DIR), kept across opens with
   keepCache; noFlush: the kernel sends no FLUSH at the handle's closes (FOPEN_NOFLUSH). */
static napi_value js_reply_open(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  fuse_req_t req = get_req(env, argv[0]);
  struct session *req_session = fuse_req_userdata(req);
  struct fuse_file_info fi;
  memset(&fi, 0, sizeof fi);
  fi.fh = (uint64_t)num(env, argv[1]);
  bool keep = false, cache_dir = false, direct = false, no_flush = false;
  napi_get_value_bool(env, argv[2], &keep);
  if (argc >= 4) napi_get_value_bool(env, argv[3], &cache_dir);
  if (argc >= 5) napi_get_value_bool(env, argv[4], &direct);
  if (argc >= 6) napi_get_value_bool(env, argv[5], &no_flush);
  fi.keep_cache = keep;
  fi.cache_readdir = cache_dir;
  fi.direct_io = direct;
  fi.noflush = no_flush;
  return ret_int(env, fuse_reply_open(req, &fi));
}

/* replyBuf(req, buffer, length) */
static napi_value js_reply_buf(napi_env env, napi_callback_info info) {
  ARGS(3);
  void *data = NULL;
  size_t length = 0;
  napi_get_buffer_info(env, argv[1], &data, &length);
  size_t n = (size_t)num(env, argv[2]);
  if (n > length) n = length;
  return ret_int(env, fuse_reply_buf(req, data, n));
}

/* replyWrite(req, count) */
static napi_value js_reply_write(napi_env env, napi_callback_info info) {
  ARGS(2);
  return ret_int(env, fuse_reply_write(req, (size_t)num(env, argv[1])));
}

/* replyReadlink(req, target) */
static napi_value js_reply_readlink(napi_env env, napi_callback_info info) {
  ARGS(2);
  size_t len = 0;
  napi_get_value_string_utf8(env, argv[1], NULL, 0, &len);
  char *target = malloc(len + 1);
  napi_get_value_string_utf8(env, argv[1], target, len + 1, &len);
  int r = fuse_reply_readlink(req, target);
  free(target);
  return ret_int(env, r);
}

/* replyStatfs(req, Float64Array [bsize, blocks, bfree, bavail, files, ffree, namemax]) */
static napi_value js_reply_statfs(napi_env env, napi_callback_info info) {
  ARGS(2);
  void *data = NULL;
  size_t length = 0;
  napi_typedarray_type type;
  napi_get_typedarray_info(env, argv[1], &type, &length, &data, NULL, NULL);
  struct statvfs sv;
  memset(&sv, 0, sizeof sv);
  if (type == napi_float64_array && length >= 7) {
    double *a = data;
    sv.f_bsize = sv.f_frsize = (unsigned long)a[0];
    sv.f_blocks = (fsblkcnt_t)a[1]; sv.f_bfree = (fsblkcnt_t)a[2]; sv.f_bavail = (fsblkcnt_t)a[3];
    sv.f_files = (fsfilcnt_t)a[4]; sv.f_ffree = sv.f_favail = (fsfilcnt_t)a[5];
    sv.f_namemax = (unsigned long)a[6];
  }
  return ret_int(env, fuse_reply_statfs(req, &sv));
}

/* replyXattrSize(req, size) — the answer to a size probe (size 0 requests). */
static napi_value js_reply_xattr(napi_env env, napi_callback_info info) {
  ARGS(2);
  return ret_int(env, fuse_reply_xattr(req, (size_t)num(env, argv[1])));
}

/* names[i] into out (a name is at most NAME_MAX bytes; cap leaves room). */
static void name_at(napi_env env, napi_value names, uint32_t i, char *out, size_t cap) {
  napi_value v;
  size_t len;
  out[0] = 0;
  napi_get_element(env, names, i, &v);
  napi_get_value_string_utf8(env, v, out, cap, &len);
}

/* replyDir(req, size, offset, names[], inos[], modes[]) — entries from `offset` on, as many as fit. */
static napi_value js_reply_dir(napi_env env, napi_callback_info info) {
  ARGS(6);
  size_t size = (size_t)num(env, argv[1]);
  uint32_t offset = (uint32_t)num(env, argv[2]);
  uint32_t count = 0;
  napi_get_array_length(env, argv[3], &count);
  char *buf = malloc(size ? size : 1);
  size_t used = 0;
  char name[1024];
  for (uint32_t i = offset; i < count; i++) {
    napi_value v;
    name_at(env, argv[3], i, name, sizeof name);
    struct stat st;
    memset(&st, 0, sizeof st);
    napi_get_element(env, argv[4], i, &v);
    st.st_ino = (ino_t)num(env, v);
    napi_get_element(env, argv[5], i, &v);
    st.st_mode = (mode_t)num(env, v);
    size_t need = fuse_add_direntry(req, buf + used, size - used, name, &st, i + 1);
    if (need > size - used) break;
    used += need;
  }
  int r = fuse_reply_buf(req, buf, used);
  free(buf);
  return ret_int(env, r);
}

/*
 * replyDirPlus(req, size, firstIndex, names[], attrs, entryTimeout, attrTimeout) -> entries sent
 * (or a negative errno when the reply failed). Entry i carries attributes attrs[14 i ..] and
 * the offset firstIndex + i + 1. The kernel takes one lookup of every entry sent except "."
 * and ".." and those with nlink 0, which go without a node id: the caller counts the lookups
 * of the first n.
 */
static napi_value js_reply_dirplus(napi_env env, napi_callback_info info) {
  ARGS(7);
  size_t size = (size_t)num(env, argv[1]);
  double first = num(env, argv[2]);
  uint32_t count = 0;
  napi_get_array_length(env, argv[3], &count);
  double *a = NULL;
  size_t length = 0;
  napi_typedarray_type type;
  napi_get_typedarray_info(env, argv[4], &type, &length, (void **)&a, NULL, NULL);
  if (type != napi_float64_array || length < (size_t)count * 14) count = 0;
  double entry_timeout = num(env, argv[5]), attr_timeout = num(env, argv[6]);
  char *buf = malloc(size ? size : 1);
  size_t used = 0;
  uint32_t sent = 0;
  char name[1024];
  for (uint32_t i = 0; i < count; i++) {
    name_at(env, argv[3], i, name, sizeof name);
    struct fuse_entry_param e;
    memset(&e, 0, sizeof e);
    stat_from(a + 14 * i, &e.attr);
    /* "." and "..", and names gone since opendir (nlink 0), go without a node id. */
    int nodeless = e.attr.st_nlink == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
    e.ino = nodeless ? 0 : e.attr.st_ino;
    e.generation = 1;
    e.entry_timeout = nodeless ? 0 : entry_timeout;
    e.attr_timeout = nodeless ? 0 : attr_timeout;
    size_t need = fuse_add_direntry_plus(req, buf + used, size - used, name, &e, (off_t)(first + i + 1));
    if (need > size - used) break;
    used += need;
    sent++;
  }
  int r = fuse_reply_buf(req, buf, used);
  free(buf);
  return ret_int(env, r < 0 ? r : (int)sent);
}

/* replyNone(req) */
static napi_value js_reply_none(napi_env env, napi_callback_info info) {
  ARGS(1);
  fuse_reply_none(req);
  answered(req_session);
  return NULL;
}

/* Kernel notifications, run on the thread pool. */
struct notify {
  struct session *s;
  int kind; /* 0 inode (attributes and pages), 1 entry, 2 inode range (off -1: attributes only) */
  double off, len;
  fuse_ino_t ino;
  char *name;
  int result;
  napi_deferred deferred;
  napi_async_work work;
};

static void notify_execute(napi_env env, void *data) {
  (void)env;
  struct notify *n = data;
  if (!n->s->se || !n->s->running) { n->result = -ENOTCONN; return; }
  if (n->kind == 0) n->result = fuse_lowlevel_notify_inval_inode(n->s->se, n->ino, 0, 0);
  else if (n->kind == 2) n->result = fuse_lowlevel_notify_inval_inode(n->s->se, n->ino, (off_t)n->off, (off_t)n->len);
  else n->result = fuse_lowlevel_notify_inval_entry(n->s->se, n->ino, n->name, strlen(n->name));
}

static void notify_complete(napi_env env, napi_status status, void *data) {
  (void)status;
  struct notify *n = data;
  napi_value v;
  napi_create_int32(env, n->result, &v);
  napi_resolve_deferred(env, n->deferred, v);
  napi_delete_async_work(env, n->work);
  free(n->name);
  free(n);
}

/* notifyInvalInode(session, ino) / notifyInvalEntry(session, parent, name) /
   notifyInvalRange(session, ino, offset, length) -> Promise<errno result> */
static napi_value notify(napi_env env, napi_callback_info info, int kind) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  struct notify *n = calloc(1, sizeof *n);
  n->s = get_session(env, argv[0]);
  n->kind = kind;
  n->ino = (fuse_ino_t)num(env, argv[1]);
  if (kind == 1) {
    size_t len = 0;
    napi_get_value_string_utf8(env, argv[2], NULL, 0, &len);
    n->name = malloc(len + 1);
    napi_get_value_string_utf8(env, argv[2], n->name, len + 1, &len);
  }
  if (kind == 2) { n->off = num(env, argv[2]); n->len = num(env, argv[3]); }
  napi_value promise, name;
  CHECK(napi_create_promise(env, &n->deferred, &promise));
  napi_create_string_utf8(env, "computerd-fuse3-notify", NAPI_AUTO_LENGTH, &name);
  CHECK(napi_create_async_work(env, NULL, name, notify_execute, notify_complete, n, &n->work));
  CHECK(napi_queue_async_work(env, n->work));
  return promise;
}
static napi_value js_notify_inode(napi_env env, napi_callback_info info) { return notify(env, info, 0); }
static napi_value js_notify_entry(napi_env env, napi_callback_info info) { return notify(env, info, 1); }
static napi_value js_notify_range(napi_env env, napi_callback_info info) { return notify(env, info, 2); }

/*
 * Puts bytes into the kernel's page cache of a file (FUSE_NOTIFY_STORE), on the thread pool: the
 * pages a write-only handle's writes bypassed (they went straight from the writer's buffer to
 * the daemon, FOPEN_DIRECT_IO). One notification per chunk, in order; each chunk's buffer is
 * referenced until the work is done (JS changes none of them meanwhile: direct-writes.ts).
 */
struct store {
  struct session *s;
  fuse_ino_t ino;
  off_t offset;
  long generation; /* stores_cancelled when it was queued */
  uint32_t count;
  napi_ref *refs;
  char **data;
  size_t *lens;
  int result;
  napi_deferred deferred;
  napi_async_work work;
};

static void store_execute(napi_env env, void *data) {
  (void)env;
  struct store *st = data;
  if (!st->s->se || !st->s->running) { st->result = -ENOTCONN; return; }
  off_t off = st->offset;
  for (uint32_t i = 0; i < st->count && st->result == 0; i++) {
    if (__atomic_load_n(&st->s->stores_cancelled, __ATOMIC_ACQUIRE) != st->generation) break;
    if (st->lens[i] == 0) continue;
    struct fuse_bufvec buf = FUSE_BUFVEC_INIT(st->lens[i]);
    buf.buf[0].mem = st->data[i];
    st->result = fuse_lowlevel_notify_store(st->s->se, st->ino, off, &buf, 0);
    off += (off_t)st->lens[i];
  }
}

static void store_complete(napi_env env, napi_status status, void *data) {
  (void)status;
  struct store *st = data;
  for (uint32_t i = 0; i < st->count; i++) napi_delete_reference(env, st->refs[i]);
  napi_value v;
  napi_create_int32(env, st->result, &v);
  napi_resolve_deferred(env, st->deferred, v);
  napi_delete_async_work(env, st->work);
  free(st->refs); free(st->data); free(st->lens); free(st);
}

/* notifyStore(session, ino, offset, chunks: Uint8Array[]) -> Promise<errno result>: the chunks
   are the file's bytes from `offset` on. */
/* cancelStores(session): every store on its way stops before its next chunk (what it stored is
   current: nothing changed the file meanwhile). */
static napi_value js_cancel_stores(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  struct session *s = get_session(env, argv[0]);
  if (s) __atomic_add_fetch(&s->stores_cancelled, 1, __ATOMIC_ACQ_REL);
  return NULL;
}

static napi_value js_notify_store(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  struct store *st = calloc(1, sizeof *st);
  st->s = get_session(env, argv[0]);
  st->ino = (fuse_ino_t)num(env, argv[1]);
  st->offset = (off_t)num(env, argv[2]);
  st->generation = __atomic_load_n(&st->s->stores_cancelled, __ATOMIC_ACQUIRE);
  CHECK(napi_get_array_length(env, argv[3], &st->count));
  st->refs = calloc(st->count ? st->count : 1, sizeof *st->refs);
  st->data = calloc(st->count ? st->count : 1, sizeof *st->data);
  st->lens = calloc(st->count ? st->count : 1, sizeof *st->lens);
  for (uint32_t i = 0; i < st->count; i++) {
    napi_value chunk;
    CHECK(napi_get_element(env, argv[3], i, &chunk));
    napi_typedarray_type type;
    napi_value ab;
    size_t offset = 0;
    void *base = NULL;
    CHECK(napi_get_typedarray_info(env, chunk, &type, &st->lens[i], &base, &ab, &offset));
    st->data[i] = base;
    CHECK(napi_create_reference(env, chunk, 1, &st->refs[i]));
  }
  napi_value promise, name;
  CHECK(napi_create_promise(env, &st->deferred, &promise));
  napi_create_string_utf8(env, "computerd-fuse3-store", NAPI_AUTO_LENGTH, &name);
  CHECK(napi_create_async_work(env, NULL, name, store_execute, store_complete, st, &st->work));
  CHECK(napi_queue_async_work(env, st->work));
  return promise;
}

NAPI_MODULE_INIT() {
  /* A real-time signal nobody handles yet, without SA_RESTART, so a read it hits fails with EINTR. */
  for (int sig = SIGRTMIN + 8; !wake_signal && sig <= SIGRTMAX - 8; sig++) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) continue;
    if (old.sa_handler == on_wake) wake_signal = sig;
    else if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
      struct sigaction act;
      memset(&act, 0, sizeof act);
      act.sa_handler = on_wake;
      sigemptyset(&act.sa_mask);
      if (sigaction(sig, &act, NULL) == 0) wake_signal = sig;
    }
  }
  napi_property_descriptor props[] = {
    {"mount", NULL, js_mount, NULL, NULL, NULL, napi_enumerable, NULL},
    {"unmount", NULL, js_unmount, NULL, NULL, NULL, napi_enumerable, NULL},
    {"destroy", NULL, js_destroy, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyErr", NULL, js_reply_err, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyEntry", NULL, js_reply_entry, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyCreate", NULL, js_reply_create, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyAttr", NULL, js_reply_attr, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyOpen", NULL, js_reply_open, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyBuf", NULL, js_reply_buf, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyWrite", NULL, js_reply_write, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyReadlink", NULL, js_reply_readlink, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyStatfs", NULL, js_reply_statfs, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyXattrSize", NULL, js_reply_xattr, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyDir", NULL, js_reply_dir, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyNone", NULL, js_reply_none, NULL, NULL, NULL, napi_enumerable, NULL},
    {"notifyInvalInode", NULL, js_notify_inode, NULL, NULL, NULL, napi_enumerable, NULL},
    {"notifyInvalEntry", NULL, js_notify_entry, NULL, NULL, NULL, napi_enumerable, NULL},
    {"notifyInvalRange", NULL, js_notify_range, NULL, NULL, NULL, napi_enumerable, NULL},
    {"setNoCapabilities", NULL, js_set_no_caps, NULL, NULL, NULL, napi_enumerable, NULL},
    {"loopAnswers", NULL, js_loop_answers, NULL, NULL, NULL, napi_enumerable, NULL},
    {"setPagesSeen", NULL, js_set_pages_seen, NULL, NULL, NULL, napi_enumerable, NULL},
    {"receiveBuffers", NULL, js_receive_buffers, NULL, NULL, NULL, napi_enumerable, NULL},
    {"notifyStore", NULL, js_notify_store, NULL, NULL, NULL, napi_enumerable, NULL},
    {"cancelStores", NULL, js_cancel_stores, NULL, NULL, NULL, napi_enumerable, NULL},
    {"grantWrites", NULL, js_grant_writes, NULL, NULL, NULL, napi_enumerable, NULL},
    {"revokeWrites", NULL, js_revoke_writes, NULL, NULL, NULL, napi_enumerable, NULL},
    {"earlyWrites", NULL, js_early_writes, NULL, NULL, NULL, napi_enumerable, NULL},
    {"setFlushWanted", NULL, js_set_flush_wanted, NULL, NULL, NULL, napi_enumerable, NULL},
    {"setNoSetid", NULL, js_set_no_setid, NULL, NULL, NULL, napi_enumerable, NULL},
    {"killPriv", NULL, js_kill_priv, NULL, NULL, NULL, napi_enumerable, NULL},
    {"replyDirPlus", NULL, js_reply_dirplus, NULL, NULL, NULL, napi_enumerable, NULL},
    {"cacheAttrs", NULL, js_cache_attrs, NULL, NULL, NULL, napi_enumerable, NULL},
    {"clearAttrs", NULL, js_clear_attrs, NULL, NULL, NULL, napi_enumerable, NULL},
    {"dropAttr", NULL, js_drop_attr, NULL, NULL, NULL, napi_enumerable, NULL},
    {"armWriteRun", NULL, js_arm_write_run, NULL, NULL, NULL, napi_enumerable, NULL},
    {"disarmWriteRuns", NULL, js_disarm_write_runs, NULL, NULL, NULL, napi_enumerable, NULL},
    {"flushWriteRun", NULL, js_flush_write_run, NULL, NULL, NULL, napi_enumerable, NULL},
    {"holdNames", NULL, js_hold_names, NULL, NULL, NULL, napi_enumerable, NULL},
    {"putEntry", NULL, js_put_entry, NULL, NULL, NULL, napi_enumerable, NULL},
    {"dropEntry", NULL, js_drop_entry, NULL, NULL, NULL, napi_enumerable, NULL},
    {"clearEntries", NULL, js_clear_entries, NULL, NULL, NULL, napi_enumerable, NULL},
    {"holdsNames", NULL, js_holds_names, NULL, NULL, NULL, napi_enumerable, NULL},
    {"addName", NULL, js_add_name, NULL, NULL, NULL, napi_enumerable, NULL},
    {"dropNames", NULL, js_drop_names, NULL, NULL, NULL, napi_enumerable, NULL},
    {"clearNames", NULL, js_clear_names, NULL, NULL, NULL, napi_enumerable, NULL},
    {"setLoopCreates", NULL, js_set_loop_creates, NULL, NULL, NULL, napi_enumerable, NULL},
    {"grantInodes", NULL, js_grant_inodes, NULL, NULL, NULL, napi_enumerable, NULL},
    {"inodesLeft", NULL, js_inodes_left, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  if (SHA256) {
    napi_property_descriptor digest = {"sha256", NULL, js_sha256, NULL, NULL, NULL, napi_enumerable, NULL};
    napi_define_properties(env, exports, 1, &digest);
  }
  return exports;
}
