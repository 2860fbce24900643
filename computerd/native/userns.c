/*
 * computerd-userns: the two steps of the container sandbox of `computerd host` that no Debian
 * tool does as root without /etc/subuid (newuidmap) or a newer util-linux (X-mount.idmap):
 *
 *   computerd-userns run BASE COUNT CMD [ARG...]
 *       runs CMD as uid and gid 0 of a new user namespace whose ids 0..COUNT-1 are the host's
 *       BASE..BASE+COUNT-1: root inside, with the capabilities of that namespace only; the host
 *       sees subordinate ids. This process unshares its user namespace, a forked helper (still
 *       root on the host) writes its id maps, then it becomes uid 0 there and execs CMD, so the
 *       caller's pid is CMD's.
 *
 *   computerd-userns idmap BASE COUNT SRC DST
 *       mounts SRC at DST read-only through an idmapped mount: a file owned by host id N < COUNT
 *       shows as owned by BASE+N, so inside that namespace the files of a root filesystem built
 *       by root belong to root, without changing them on disk.
 *
 * Must run as root on the host. Built by `npm run build:native -w computerd` (build.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what) {
  fprintf(stderr, "computerd-userns: %s: %s\n", what, strerror(errno));
  exit(125);
}

static unsigned long parse_id(const char *text, const char *name) {
  char *end = NULL;
  errno = 0;
  unsigned long value = strtoul(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value > 0xfffffffeUL) {
    fprintf(stderr, "computerd-userns: bad %s: %s\n", name, text);
    exit(125);
  }
  return value;
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) die(path);
  ssize_t len = (ssize_t)strlen(text);
  if (write(fd, text, (size_t)len) != len) die(path);
  close(fd);
}

/* Writes the uid and gid maps of process `pid`'s user namespace: 0..count-1 → base... */
static void write_maps(pid_t pid, unsigned long base, unsigned long count) {
  char path[64];
  char map[64];
  snprintf(map, sizeof map, "0 %lu %lu\n", base, count);
  snprintf(path, sizeof path, "/proc/%d/uid_map", (int)pid);
  write_file(path, map);
  snprintf(path, sizeof path, "/proc/%d/gid_map", (int)pid);
  write_file(path, map);
}

/* `run`: unshare, have a helper outside write the maps, become root inside, exec. */
static int run(unsigned long base, unsigned long count, char **argv) {
  int go[2];
  int done[2];
  if (pipe2(go, O_CLOEXEC) < 0 || pipe2(done, O_CLOEXEC) < 0) die("pipe");
  pid_t self = getpid();
  pid_t helper = fork();
  if (helper < 0) die("fork");
  if (helper == 0) {
    char byte;
    close(go[1]);
    close(done[0]);
    if (read(go[0], &byte, 1) != 1) _exit(1);
    write_maps(self, base, count);
    if (write(done[1], "k", 1) != 1) _exit(1);
    _exit(0);
  }
  close(go[0]);
  close(done[1]);
  if (unshare(CLONE_NEWUSER) < 0) die("unshare(CLONE_NEWUSER)");
  if (write(go[1], "u", 1) != 1) die("signal the map writer");
  char byte;
  if (read(done[0], &byte, 1) != 1) {
    fprintf(stderr, "computerd-userns: the id maps were not written\n");
    exit(125);
  }
  int status = 0;
  waitpid(helper, &status, 0);
  close(go[1]);
  close(done[0]);
  if (setgroups(0, NULL) < 0) die("setgroups");
  if (setresgid(0, 0, 0) < 0) die("setresgid");
  if (setresuid(0, 0, 0) < 0) die("setresuid");
  execvp(argv[0], argv);
  die(argv[0]);
  return 125;
}

/* A user namespace with the map, held open by a stopped child; returns its fd. */
static int mapped_userns(unsigned long base, unsigned long count, pid_t *holder) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) < 0) die("pipe");
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    close(ready[0]);
    if (unshare(CLONE_NEWUSER) < 0) _exit(1);
    if (write(ready[1], "u", 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char byte;
  if (read(ready[0], &byte, 1) != 1) die("unshare in the holder");
  close(ready[0]);
  write_maps(child, base, count);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/ns/user", (int)child);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) die(path);
  *holder = child;
  return fd;
}

/* `idmap`: an idmapped, read-only, recursive bind of src at dst. */
static int idmap(unsigned long base, unsigned long count, const char *src, const char *dst) {
  pid_t holder = 0;
  int userns = mapped_userns(base, count, &holder);
  int tree = (int)syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
  if (tree < 0) die("open_tree");
  struct mount_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_RDONLY;
  attr.userns_fd = (unsigned long)userns;
  if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0)
    die("mount_setattr(MOUNT_ATTR_IDMAP)");
  if (syscall(SYS_move_mount, tree, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH) < 0) die("move_mount");
  kill(holder, SIGKILL);
  waitpid(holder, NULL, 0);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "run") == 0) {
    return run(parse_id(argv[2], "BASE"), parse_id(argv[3], "COUNT"), argv + 4);
  }
  if (argc == 6 && strcmp(argv[1], "idmap") == 0) {
    return idmap(parse_id(argv[2], "BASE"), parse_id(argv[3], "COUNT"), argv[4], argv[5]);
  }
  fprintf(stderr,
          "usage: computerd-userns run BASE COUNT CMD [ARG...]\n"
          "       computerd-userns idmap BASE COUNT SRC DST\n");
  return 2;
}
