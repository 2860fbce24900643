/* Requests the FUSE loop answers itself (loop-changes.h). */
#include "loop-changes.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* File handles of the creates the loop answers (create_here): above those of its opens. */
#define LOOP_CREATE_FH_FIRST (1ULL << 42)

/* A new node the loop answers for (a create, a mkdir), as new_node_here made it. */
struct new_node {
  struct loop_create made;
  struct timespec now;
  uint32_t uid, gid;
  struct fuse_entry_param entry; /* the answer's entry */
  struct request *r;             /* its request for JS, with nothing pushed yet */
};

/*
 * What a create and a mkdir the loop answers share (see create_here): where JS's answer is
 * certain, the new node (`type`: S_IFREG or S_IFDIR) gets a number of the supply, the caller's
 * ids and the loop's time for all three times; its attributes go into the table, its name into
 * the loop's names and entries, and its directory is dated with that time (and gains a link for
 * a directory). 0 when JS must answer.
 */
static int new_node_here(struct session *s, fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                         mode_t type, enum op op, struct new_node *out) {
  if (strlen(name) > NAME_BYTES_MAX || (mode & (S_ISUID | S_ISGID)) ||
      __atomic_load_n(&s->flush_wanted, __ATOMIC_ACQUIRE) ||
      __atomic_load_n(&s->removals_pending, __ATOMIC_ACQUIRE) != 0 || !names_absent(&s->names, parent, name))
    return 0;
  struct attr_slot *dir = &s->attrs->slots[parent % ATTR_SLOTS];
  pthread_mutex_lock(&s->attrs->lock);
  int dir_known = dir->ino == parent && S_ISDIR((mode_t)dir->attr[1]) && !((mode_t)dir->attr[1] & S_ISGID);
  pthread_mutex_unlock(&s->attrs->lock);
  const struct fuse_ctx *ctx = fuse_req_ctx(req);
  /* Counted before the take: once JS turned the creates off (under the take's lock), every
     create taken before is counted, so a fence after it waits for them all (writesHandled). */
  __atomic_add_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
  if (!dir_known || !creates_take(&s->creates, ctx->uid, ctx->gid, &out->made)) {
    __atomic_sub_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
    return 0;
  }
  const struct loop_create *made = &out->made;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  int is_dir = type == S_IFDIR;
  double a[14] = {(double)made->ino, (double)(type | (mode & 07777)), is_dir ? 2 : 1, ctx->uid, ctx->gid, 0, 0, 0,
                  (double)now.tv_sec, (double)now.tv_nsec, (double)now.tv_sec, (double)now.tv_nsec,
                  (double)now.tv_sec, (double)now.tv_nsec};
  struct attr_slot *slot = &s->attrs->slots[made->ino % ATTR_SLOTS];
  struct request *r = make(NULL, op);
  r->loop_answered = 1;
  slot_change_begin(s, r, parent);
  pthread_mutex_lock(&s->attrs->lock);
  if (dir->ino == parent) {
    dir->attr[2] += is_dir;
    dir->attr[10] = dir->attr[12] = (double)now.tv_sec;
    dir->attr[11] = dir->attr[13] = (double)now.tv_nsec;
  }
  slot->ino = made->ino;
  s->attrs->filled = 1;
  memcpy(slot->attr, a, sizeof slot->attr);
  s->attrs->timeout = made->attr_timeout;
  pthread_mutex_unlock(&s->attrs->lock);
  names_add(&s->names, parent, name);
  entries_put(&s->entries, parent, name, made->ino, made->entry_timeout);
  memset(&out->entry, 0, sizeof out->entry);
  stat_from(a, &out->entry.attr);
  out->entry.ino = made->ino;
  out->entry.generation = 1;
  out->entry.entry_timeout = made->entry_timeout;
  out->entry.attr_timeout = made->attr_timeout;
  out->now = now;
  out->uid = ctx->uid;
  out->gid = ctx->gid;
  out->r = r;
  return 1;
}

/*
 * Answers a create as JS would (fuse3-ops.ts OP.create, fuse3-own.ts), where that answer is
 * certain (loop-creates.h): the name is missing from a directory whose names the loop holds and
 * whose attributes it has (not setgid: the new file would take its group), no setuid or setgid
 * bit is asked for, no removal is on its way and no error waits for a close. The new file's
 * attributes go into the loop's table and its name into the loop's names and entries, its
 * directory's mtime and ctime become the create's time (JS dates the directory's change so,
 * vfs MadeAs), and a handle that may write is armed for a run at 0, as JS does before its own
 * answer. Handed to JS as OP_CREATE_ANSWERED ([parent, mode, flags,
 * ino, fh, sec, nsec, direct, uid, gid], name), in order. 0 when JS must answer.
 */
int create_here(struct session *s, fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                struct fuse_file_info *fi) {
  struct new_node n;
  if (!new_node_here(s, req, parent, name, mode, S_IFREG, OP_CREATE_ANSWERED, &n)) return 0;
  uint64_t fh = LOOP_CREATE_FH_FIRST + n.made.serial;
  if ((fi->flags & O_ACCMODE) != O_RDONLY) run_arm(&s->run, n.made.ino, fh, 0);
  fi->fh = fh;
  fi->direct_io = n.made.direct && (fi->flags & O_ACCMODE) == O_WRONLY;
  struct request *r = n.r;
  PUSH(r, parent); PUSH(r, mode & 07777); PUSH(r, fi->flags); PUSH(r, n.made.ino); PUSH(r, fh);
  PUSH(r, n.now.tv_sec); PUSH(r, n.now.tv_nsec); PUSH(r, fi->direct_io); PUSH(r, n.uid); PUSH(r, n.gid);
  r->s1 = dup_str(name);
  __atomic_add_fetch(&s->creates.answered, 1, __ATOMIC_RELAXED);
  fuse_reply_create(req, &n.entry, fi);
  enqueue(s, r);
  return 1;
}

/*
 * Answers an unlink as JS would (fuse3-ops.ts OP.unlink), where that answer is certain: the loop
 * holds the name as found (loop-entries.h: the kernel's dentry says it is no directory) and its
 * directory's attributes, no removal is on its way to JS, no error waits for a close, and the
 * loop's creates are on (JS holds both while the DO's changes are applied). JS's answer is then
 * 0 whatever else holds (a file still open keeps a hidden name). The name leaves the loop's
 * entries (its held names keep it: a lookup or create of it goes to JS), the directory's mtime
 * and ctime in the table become the unlink's time, and the file's attributes lose a link with
 * that ctime, or go with its last link. Handed to JS as OP_UNLINK_ANSWERED ([parent, ino, sec,
 * nsec], name), in order. 0 when JS must answer.
 */
int unlink_here(struct session *s, fuse_req_t req, fuse_ino_t parent, const char *name) {
  if (strlen(name) > NAME_BYTES_MAX || __atomic_load_n(&s->flush_wanted, __ATOMIC_ACQUIRE) ||
      __atomic_load_n(&s->removals_pending, __ATOMIC_ACQUIRE) != 0)
    return 0;
  double entry_timeout = 0;
  fuse_ino_t ino = (fuse_ino_t)entries_find(&s->entries, parent, name, &entry_timeout);
  if (ino == 0) return 0;
  struct attr_slot *dir = &s->attrs->slots[parent % ATTR_SLOTS];
  pthread_mutex_lock(&s->attrs->lock);
  int dir_known = dir->ino == parent && S_ISDIR((mode_t)dir->attr[1]);
  pthread_mutex_unlock(&s->attrs->lock);
  if (!dir_known) return 0;
  /* Counted before the check, as a create (create_here). */
  __atomic_add_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
  if (!creates_on(&s->creates, NULL, NULL)) {
    __atomic_sub_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
    return 0;
  }
  __atomic_add_fetch(&s->unlinks_pending, 1, __ATOMIC_ACQ_REL);
  struct request *r = make(NULL, OP_UNLINK_ANSWERED);
  r->loop_answered = 1;
  slot_change_begin(s, r, parent);
  slot_change_begin(s, r, ino);
  entries_drop(&s->entries, parent, name);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct attr_slot *file = &s->attrs->slots[ino % ATTR_SLOTS];
  pthread_mutex_lock(&s->attrs->lock);
  if (dir->ino == parent) {
    dir->attr[10] = dir->attr[12] = (double)now.tv_sec;
    dir->attr[11] = dir->attr[13] = (double)now.tv_nsec;
  }
  if (file->ino == ino && file->attr[2] > 1 && !S_ISDIR((mode_t)file->attr[1])) {
    file->attr[2] -= 1;
    file->attr[12] = (double)now.tv_sec;
    file->attr[13] = (double)now.tv_nsec;
  } else if (file->ino == ino) {
    /* Its last link: gone, or an open file JS hides (nlink 0): JS answers its getattrs. */
    file->ino = 0;
    contents_drop(&s->attrs->contents, ino);
  }
  pthread_mutex_unlock(&s->attrs->lock);
  PUSH(r, parent); PUSH(r, ino); PUSH(r, now.tv_sec); PUSH(r, now.tv_nsec);
  r->s1 = dup_str(name);
  __atomic_add_fetch(&s->loop_unlink, 1, __ATOMIC_RELAXED);
  fuse_reply_err(req, 0);
  enqueue(s, r);
  return 1;
}

/*
 * Answers a mkdir as JS would (fuse3-ops.ts OP.mkdir), where that answer is certain: as a create
 * (create_here: a name certainly missing, its directory's attributes known and not setgid, no
 * setuid or setgid bit asked for, no removal on its way, no error waiting for a close), with an
 * inode number of the same supply. The new directory's attributes go into the loop's table, it
 * is held with no names (the creates in it the loop answers next), its name goes into the loop's
 * names and entries, and its parent gains a link and is dated with the mkdir's time. Handed to
 * JS as OP_MKDIR_ANSWERED ([parent, mode, ino, sec, nsec, uid, gid], name), in order. 0 when JS
 * must answer.
 */
int mkdir_here(struct session *s, fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode) {
  struct new_node n;
  if (!new_node_here(s, req, parent, name, mode, S_IFDIR, OP_MKDIR_ANSWERED, &n)) return 0;
  names_hold_new(&s->names, n.made.ino);
  struct request *r = n.r;
  PUSH(r, parent); PUSH(r, mode & 07777); PUSH(r, n.made.ino); PUSH(r, n.now.tv_sec); PUSH(r, n.now.tv_nsec);
  PUSH(r, n.uid); PUSH(r, n.gid);
  r->s1 = dup_str(name);
  __atomic_add_fetch(&s->loop_mkdir, 1, __ATOMIC_RELAXED);
  fuse_reply_entry(req, &n.entry);
  enqueue(s, r);
  return 1;
}

/* A change begun (counted in early_pending, its slots marked) whose slot JS took meanwhile (a
   remote change): nothing reaches JS, which answers the request instead. 0. */
static int abandon(struct session *s, struct request *r) {
  slot_changes_end(s, r);
  __atomic_sub_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
  free_request(r);
  return 0;
}

/*
 * Answers a link as JS would (fuse3-ops.ts OP.link), where that answer is certain: the new name
 * is certainly missing from a directory whose attributes the loop has, the loop has the file's
 * attributes (the kernel refuses a directory, and a file whose last link went), no removal is on
 * its way, no error waits for a close and the loop's creates are on. The file gains a link with
 * the link's time as its ctime, the directory that time as its mtime and ctime, the name goes
 * into the loop's names and entries, and the entry answered carries the file's new attributes.
 * Handed to JS as OP_LINK_ANSWERED ([ino, newparent, sec, nsec], name), in order. 0 when JS
 * must answer.
 */
int link_here(struct session *s, fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname) {
  if (strlen(newname) > NAME_BYTES_MAX || __atomic_load_n(&s->flush_wanted, __ATOMIC_ACQUIRE) ||
      __atomic_load_n(&s->removals_pending, __ATOMIC_ACQUIRE) != 0 || !names_absent(&s->names, newparent, newname))
    return 0;
  struct attr_slot *dir = &s->attrs->slots[newparent % ATTR_SLOTS];
  struct attr_slot *file = &s->attrs->slots[ino % ATTR_SLOTS];
  pthread_mutex_lock(&s->attrs->lock);
  int known = dir->ino == newparent && S_ISDIR((mode_t)dir->attr[1]) && file->ino == ino && ino != newparent &&
              !S_ISDIR((mode_t)file->attr[1]) && file->attr[2] >= 1;
  pthread_mutex_unlock(&s->attrs->lock);
  if (!known) return 0;
  double entry_timeout = 0, attr_timeout = 0;
  /* Counted before the check, as a create (create_here). */
  __atomic_add_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
  if (!creates_on(&s->creates, &entry_timeout, &attr_timeout)) {
    __atomic_sub_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
    return 0;
  }
  struct request *r = make(NULL, OP_LINK_ANSWERED);
  r->loop_answered = 1;
  slot_change_begin(s, r, newparent);
  slot_change_begin(s, r, ino);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct fuse_entry_param e;
  memset(&e, 0, sizeof e);
  pthread_mutex_lock(&s->attrs->lock);
  /* Both were there a moment ago: only a drop by JS (a remote change) can have taken them since. */
  int still = dir->ino == newparent && file->ino == ino;
  if (still) {
    dir->attr[10] = dir->attr[12] = (double)now.tv_sec;
    dir->attr[11] = dir->attr[13] = (double)now.tv_nsec;
    file->attr[2] += 1;
    file->attr[12] = (double)now.tv_sec;
    file->attr[13] = (double)now.tv_nsec;
    stat_from(file->attr, &e.attr);
  }
  pthread_mutex_unlock(&s->attrs->lock);
  if (!still) return abandon(s, r);
  names_add(&s->names, newparent, newname);
  entries_put(&s->entries, newparent, newname, ino, entry_timeout);
  e.ino = ino;
  e.generation = 1;
  e.entry_timeout = entry_timeout;
  e.attr_timeout = attr_timeout;
  PUSH(r, ino); PUSH(r, newparent); PUSH(r, now.tv_sec); PUSH(r, now.tv_nsec);
  r->s1 = dup_str(newname);
  __atomic_add_fetch(&s->loop_link, 1, __ATOMIC_RELAXED);
  fuse_reply_entry(req, &e);
  enqueue(s, r);
  return 1;
}

/* The relatime rule's "a day old" (relatime.ts RELATIME_MAX_AGE_SEC). */
#define RELATIME_MAX_AGE_SEC (24 * 60 * 60)
/* How far ahead of the loop's clock the change that made an access due may be (relatime.ts). */
#define CLOCK_SKEW_SEC 1

/* The atime an access at `now` of a file with these attributes (14 numbers) stores, or 0 when
   it stores none: relatime.ts atimeDue and accessTime. */
static int access_time(const double *a, struct timespec now, double *sec, double *nsec) {
  if (a[8] == (double)now.tv_sec && a[9] == (double)now.tv_nsec) return 0;
  if (!atime_due(a) && (double)now.tv_sec - a[8] < RELATIME_MAX_AGE_SEC) return 0;
  int mtime_later = a[10] > a[12] || (a[10] == a[12] && a[11] >= a[13]);
  double changed_sec = mtime_later ? a[10] : a[12], changed_nsec = mtime_later ? a[11] : a[13];
  int before_now = changed_sec < (double)now.tv_sec || (changed_sec == (double)now.tv_sec && changed_nsec < (double)now.tv_nsec);
  if (before_now || changed_sec - (double)now.tv_sec > CLOCK_SKEW_SEC) {
    *sec = (double)now.tv_sec;
    *nsec = (double)now.tv_nsec;
  } else if (changed_nsec == 999999999) {
    *sec = changed_sec + 1;
    *nsec = 0;
  } else {
    *sec = changed_sec;
    *nsec = changed_nsec + 1;
  }
  return 1;
}

/*
 * Answers a read of a small file whose bytes the loop wrote itself (loop-contents.h) while its
 * attribute table shows the size and mtime they are of, as JS would (fuse3-ops.ts OP.read): the
 * bytes, and a new atime where relatime says one is due, which the loop sets in its table and
 * hands to JS as OP_READ_ANSWERED ([ino, sec, nsec]), in order. 0 when JS must answer.
 */
int read_here(struct session *s, fuse_req_t req, fuse_ino_t ino, size_t size, off_t off) {
  if (off < 0) return 0;
  struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
  /* Made only for a read the loop answers and whose atime moves: every other read goes to JS. */
  struct request *r = NULL;
  char *copy = NULL;
  size_t count = 0;
  double sec = 0, nsec = 0;
  pthread_mutex_lock(&s->attrs->lock);
  const struct content_slot *c = slot->ino == ino && ino != 0 ? contents_of(&s->attrs->contents, slot->attr) : NULL;
  if (c) {
    count = (size_t)off >= c->len ? 0 : c->len - (size_t)off;
    if (count > size) count = size;
    copy = malloc(count ? count : 1);
  }
  if (copy) {
    memcpy(copy, c->bytes + off, count);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (access_time(slot->attr, now, &sec, &nsec)) {
      /* Counted before the change, as a create's: the fence waits for JS to store it. */
      __atomic_add_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
      r = make(NULL, OP_READ_ANSWERED);
      r->loop_answered = 1;
      slot_change_begin(s, r, ino);
      slot->attr[8] = sec;
      slot->attr[9] = nsec;
    }
  }
  pthread_mutex_unlock(&s->attrs->lock);
  if (!copy) return 0;
  __atomic_add_fetch(&s->attrs->contents.answered, 1, __ATOMIC_RELAXED);
  fuse_reply_buf(req, copy, count);
  free(copy);
  if (r) {
    PUSH(r, ino); PUSH(r, sec); PUSH(r, nsec);
    enqueue(s, r);
  }
  return 1;
}

/* The setattr bits of times (libfuse's FUSE_SET_ATTR_*): all a setattr the loop answers sets. */
#define TIMES_TO_SET (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW)

/*
 * Answers a setattr of times only (utimensat, `touch`) as JS would (fuse3-ops.ts OP.setattr,
 * LocalFs.utimens), where that answer is certain: the loop has the node's attributes, JS holds
 * nothing to store or report (a store it would make first could fail), no removal is on its
 * way and the loop's creates are on (JS holds them while the DO's changes are applied). The
 * kernel checked the caller's right (default_permissions). The times asked for (the loop's
 * clock for "now") and the change's ctime go into the table and the answer, and to JS as
 * OP_SETATTR_ANSWERED ([ino, to_set, atime sec, nsec, mtime sec, nsec, ctime sec, nsec]), in
 * order. 0 when JS must answer.
 */
int times_here(struct session *s, fuse_req_t req, fuse_ino_t ino, const struct stat *attr, int to_set) {
  if ((to_set & ~TIMES_TO_SET) != 0 || (to_set & TIMES_TO_SET) == 0 ||
      __atomic_load_n(&s->flush_wanted, __ATOMIC_ACQUIRE) || __atomic_load_n(&s->removals_pending, __ATOMIC_ACQUIRE) != 0)
    return 0;
  struct attr_slot *slot = &s->attrs->slots[ino % ATTR_SLOTS];
  pthread_mutex_lock(&s->attrs->lock);
  int known = slot->ino == ino && ino != 0;
  pthread_mutex_unlock(&s->attrs->lock);
  if (!known) return 0;
  double attr_timeout = 0;
  /* Counted before the check, as a create (create_here). */
  __atomic_add_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
  if (!creates_on(&s->creates, NULL, &attr_timeout)) {
    __atomic_sub_fetch(&s->early_pending, 1, __ATOMIC_ACQ_REL);
    return 0;
  }
  struct request *r = make(NULL, OP_SETATTR_ANSWERED);
  r->loop_answered = 1;
  slot_change_begin(s, r, ino);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  struct timespec atime = to_set & FUSE_SET_ATTR_ATIME_NOW ? now : attr->st_atim;
  struct timespec mtime = to_set & FUSE_SET_ATTR_MTIME_NOW ? now : attr->st_mtim;
  int set_atime = (to_set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW)) != 0;
  int set_mtime = (to_set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW)) != 0;
  struct stat st;
  pthread_mutex_lock(&s->attrs->lock);
  /* It was there a moment ago: only a drop by JS (a remote change) can have taken it since. */
  int still = slot->ino == ino;
  if (still) {
    if (set_atime) {
      slot->attr[8] = (double)atime.tv_sec;
      slot->attr[9] = (double)atime.tv_nsec;
    }
    if (set_mtime) {
      slot->attr[10] = (double)mtime.tv_sec;
      slot->attr[11] = (double)mtime.tv_nsec;
    }
    slot->attr[12] = (double)now.tv_sec;
    slot->attr[13] = (double)now.tv_nsec;
    stat_from(slot->attr, &st);
  }
  pthread_mutex_unlock(&s->attrs->lock);
  if (!still) return abandon(s, r);
  PUSH(r, ino); PUSH(r, to_set); PUSH(r, atime.tv_sec); PUSH(r, atime.tv_nsec);
  PUSH(r, mtime.tv_sec); PUSH(r, mtime.tv_nsec); PUSH(r, now.tv_sec); PUSH(r, now.tv_nsec);
  __atomic_add_fetch(&s->loop_setattr, 1, __ATOMIC_RELAXED);
  fuse_reply_attr(req, &st, attr_timeout);
  enqueue(s, r);
  return 1;
}
