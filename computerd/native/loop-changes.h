/*
 * Requests the FUSE loop answers itself where JS's answer is certain, handing each to JS as it
 * is, in order, to be made exactly so in the mirror (computerd/docs/mount.md, "Creates in the
 * loop", "Unlinks, mkdirs, links and reads in the loop" and "Times in the loop"): a create, an
 * unlink, a mkdir and a link, a read of bytes the loop wrote itself (loop-contents.h), and a
 * setattr of times only. Each answers 1 when the loop answered the request, 0 when it goes to
 * JS. Loop thread only.
 */
#ifndef COMPUTERD_LOOP_CHANGES_H
#define COMPUTERD_LOOP_CHANGES_H

#include "session.h"

SHARED int create_here(struct session *s, fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                       struct fuse_file_info *fi);
SHARED int unlink_here(struct session *s, fuse_req_t req, fuse_ino_t parent, const char *name);
SHARED int mkdir_here(struct session *s, fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
SHARED int link_here(struct session *s, fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
SHARED int read_here(struct session *s, fuse_req_t req, fuse_ino_t ino, size_t size, off_t off);
SHARED int times_here(struct session *s, fuse_req_t req, fuse_ino_t ino, const struct stat *attr, int to_set);

#endif
