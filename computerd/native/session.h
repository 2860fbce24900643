/*
 * The FUSE session of computerd's addon (fuse3.c) as its parts share it: the requests handed to
 * JS, the attribute table the loop answers getattrs from, and the session with the loop's
 * tables. fuse3.c runs the loop and talks to JS; loop-changes.c answers changes of names and
 * reads the loop can answer itself.
 */
#ifndef COMPUTERD_SESSION_H
#define COMPUTERD_SESSION_H

#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>
#include <node_api.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "kill-priv.h"
#include "loop-contents.h"
#include "loop-creates.h"
#include "loop-entries.h"
#include "loop-names.h"
#include "write-run.h"
#include "writer-cpu.h"

/* Functions the addon's files share, kept out of the shared object's exported symbols. */
#define SHARED __attribute__((visibility("hidden")))

enum op {
  OP_INIT, OP_LOOKUP, OP_FORGET, OP_GETATTR, OP_SETATTR, OP_READLINK, OP_MKNOD, OP_MKDIR,
  OP_UNLINK, OP_RMDIR, OP_SYMLINK, OP_RENAME, OP_LINK, OP_OPEN, OP_READ, OP_WRITE, OP_FLUSH,
  OP_RELEASE, OP_FSYNC, OP_OPENDIR, OP_READDIR, OP_RELEASEDIR, OP_FSYNCDIR, OP_STATFS,
  OP_SETXATTR, OP_GETXATTR, OP_LISTXATTR, OP_REMOVEXATTR, OP_CREATE, OP_EXIT, OP_COPY_FILE_RANGE,
  OP_READDIRPLUS, OP_WRITE_EARLY, OP_WRITE_RUN, OP_LOOKUP_FOUND, OP_CREATE_ANSWERED, OP_UNLINK_ANSWERED,
  OP_MKDIR_ANSWERED, OP_LINK_ANSWERED, OP_READ_ANSWERED, OP_SETATTR_ANSWERED
};

/* A request on its way to JS. Numbers go in n[], names in s1/s2, write data in data. */
struct request {
  enum op op;
  fuse_req_t req;
  uint32_t uid, gid, pid, umask;
  double n[16];
  int count;
  char *s1, *s2;
  char *data;
  size_t size;
  /* Non-NULL when data points into a receive buffer the request took over: freed with it. */
  char *data_block;
  /* A change of names the loop answered itself (create_here, unlink_here, mkdir_here): the fence
     waits for it until its handler returned (early_pending), and the attribute slots it changed
     take nothing from JS until its handler starts (slot_change_begin). */
  int loop_answered;
  fuse_ino_t changed[2];
  int changed_count;
};

/*
 * Attributes of inodes JS has just answered (a lookup, getattr, setattr, create, readdirplus
 * entry) or changed (a directory after a create, unlink, rename... in it): the loop answers the
 * kernel's next getattr of them itself (its revalidation after the attribute timeout, the
 * permission check of a path walk, a stat after a write). Direct-mapped by inode (a collision
 * only evicts). JS drops an inode before it answers any request that changes what a getattr of
 * it would answer, and drops them all for remote changes, so an entry is always what JS would
 * answer. An early write changes a file before JS has seen it (ll_write): the loop drops the
 * file's entry as it answers one, and takes none of that file from JS while one is on its way
 * (JS may have computed them before it). A write changes its own inode's attributes only, so
 * every other inode's are taken meanwhile (a checkout's files stored while the next one's run is
 * on its way).
 */
#define ATTR_SLOTS 16384
struct attr_slot {
  fuse_ino_t ino; /* 0: free */
  double attr[14];
};
struct attr_cache {
  pthread_mutex_t lock;
  double timeout;
  struct attr_slot slots[ATTR_SLOTS];
  /* What the kernel's page cache of each file holds (page-cache.ts "seen": mtime in ms and
     size at its last open or its own change), told by JS whenever it changes. Direct-mapped
     like the slots; under the same lock. */
  struct { fuse_ino_t ino; double mtime_ms, size; } seen[ATTR_SLOTS];
  /* Early writes and runs on their way to JS, by the slot of their inode (atomic): while one is,
     cacheAttrs takes nothing for that slot. Counted by slot, so a collision only refuses more. */
  int early[ATTR_SLOTS];
  /* Bytes of small files the loop wrote itself: it answers their reads (loop-contents.h). */
  struct loop_contents contents;
  /* A slot may have been taken since the last clear: a clear of a table never filled (a new
     mount's first remote change) touches none of its 2 MiB of pages. */
  int filled;
};

struct session {
  struct fuse_session *se;
  napi_threadsafe_function tsfn;
  pthread_t thread;
  int running;
  int loop_done;   /* set by the loop thread as it ends (atomic) */
  int joined;      /* destroy joined the loop thread */
  long pending;    /* requests handed to JS and not answered yet (atomic) */
  int destroying;  /* destroy was called: the last answer destroys the session */
  int released;    /* JS dropped the handle: free once destroyed */
  int no_caps;     /* no file has security.capability: the loop answers its probes (atomic) */
  int no_setid;    /* no file has setuid/setgid: a write that asks to kill them needs nothing (atomic) */
  struct kill_priv kill_priv; /* FUSE_HANDLE_KILLPRIV_V2 (kill-priv.h) */
  int flush_wanted; /* JS has an error to report at a close: every flush goes to JS (atomic) */
  long loop_getxattr; /* capability probes the loop answered itself (atomic) */
  long loop_flush;    /* flushes the loop answered itself (atomic) */
  long loop_getattr;  /* getattrs the loop answered from its attribute table (atomic) */
  long loop_opendir;  /* opendirs the loop answered, which also numbers its handles (atomic) */
  long loop_open;     /* read-only opens the loop answered, which also numbers their handles (atomic) */
  long loop_unlink;   /* unlinks the loop answered (atomic) */
  long loop_mkdir;    /* mkdirs the loop answered (atomic) */
  long loop_link;     /* links the loop answered (atomic) */
  long loop_setattr;  /* setattrs of times the loop answered (atomic) */
  /* Unlinks, rmdirs and renames handed to JS and not yet handled (atomic): while one is on its
     way, a name the loop's tables still show may be going, so the loop answers no open. */
  long removals_pending;
  /* Unlinks the loop answered itself and JS has not handled yet (atomic): an earlier request's
     handler may put the removed name back into the entries until then, so the loop answers no
     lookup of a found name meanwhile (lookup_found). */
  long unlinks_pending;
  /* Early writes: whole-page writes the loop answers before JS buffers them (see ll_write). */
  long long write_credit;   /* bytes of them the quota still leaves room for (atomic; JS grants) */
  long long file_size_max;  /* the largest file size (JS sets it with the credit) */
  long early_pending;       /* answered, not yet handled by JS, with the creates the loop answered (atomic) */
  long early_answered;      /* answered since mount (atomic) */
  /* Small writes continuing a stream JS armed, answered here and handed over as one (write-run.h). */
  struct write_run run;
  /* While the loop answers a stream of small writes, it runs on the writer's CPU (writer-cpu.h). */
  struct writer_cpu follow;
  /* Directories whose names the loop holds: it answers misses there (loop-names.h). */
  struct loop_names names;
  /* Names JS answered as found: the loop answers their lookups again (loop-entries.h). */
  struct loop_entries entries;
  /* Creates the loop answers, with inode numbers JS reserved (loop-creates.h). */
  struct loop_creates creates;
  struct attr_cache *attrs; /* calloc'd with the session (2 MiB) */
  /* The loop thread's current receive buffer; a big write takes it over (the loop then
     reads the next request into a pooled or fresh one). Loop thread only. */
  char *recv_mem;
  int recv_taken;
  /* Usable size of the receive buffers libfuse allocates for this session (0: none seen yet). */
  size_t recv_size;
  /* Raised by cancelStores: a store into the page cache started before stops at its next chunk (atomic). */
  long stores_cancelled;
};

/* The longest name a directory may hold (NAME_MAX): longer ones are never held. */
#define NAME_BYTES_MAX 255

#define PUSH(r, v) ((r)->n[(r)->count++] = (double)(v))

/* strdup, or NULL for NULL. */
SHARED char *dup_str(const char *s);
/* A request for JS: `req` NULL for one the loop answered (nothing to reply to). */
SHARED struct request *make(fuse_req_t req, enum op op);
/* Hands `r` to JS, in order after every request queued before (a write run first). */
SHARED void enqueue(struct session *s, struct request *r);
/* Frees a request that never reached JS. */
SHARED void free_request(struct request *r);
/* The 14 attribute numbers (fuse3-attrs.ts) as a struct stat. */
SHARED void stat_from(const double *a, struct stat *st);
/* A change the loop answered (request `r`) changes its attributes of `ino`: until its handler
   starts, cacheAttrs takes none of that slot. Raised before the slot changes. */
SHARED void slot_change_begin(struct session *s, struct request *r, fuse_ino_t ino);
/* Ends the marks of slot_change_begin (the request's handler starts, or it never reaches JS). */
SHARED void slot_changes_end(struct session *s, struct request *r);
/* Whether an access of an inode with these attributes is certainly due to update its atime
   (relatime.ts atimeDue), whatever the clock says. */
SHARED int atime_due(const double *a);

#endif
