/*
 * posix-helper: the syscalls the conformance scripts cannot make from the shell, each
 * answered with the exact errno name (so EACCES and EPERM never blur into one message).
 * Compiled at test time by conformance.test.ts; scripts find it in $POSIX_HELPER.
 *
 *   posix-helper stat PATH...            lstat: type, mode, nlink, uid:gid, rdev major:minor, size
 *   posix-helper times PATH...           lstat: atime mtime ctime as sec.nsec
 *   posix-helper OP ARGS...              one syscall; prints "OP ok" or "OP ERRNO_NAME"
 *   posix-helper unlinked PATH           a file used after its last name is gone
 *   posix-helper noreplace|exchange A B  renameat2 with RENAME_NOREPLACE / RENAME_EXCHANGE
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

static int report(const char *op, int rc) {
  if (rc < 0) printf("%s %s\n", op, strerrorname_np(errno));
  else printf("%s ok\n", op);
  return rc < 0 ? 1 : 0;
}

static const char *type_of(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "file";
    case S_IFDIR: return "dir";
    case S_IFLNK: return "symlink";
    case S_IFIFO: return "fifo";
    case S_IFCHR: return "char";
    case S_IFBLK: return "block";
    case S_IFSOCK: return "socket";
    default: return "?";
  }
}

/* "rdonly,creat,excl" -> O_* flags. */
static int open_flags(const char *list) {
  static const struct { const char *name; int flag; } table[] = {
    {"rdonly", O_RDONLY}, {"wronly", O_WRONLY}, {"rdwr", O_RDWR}, {"creat", O_CREAT},
    {"excl", O_EXCL}, {"trunc", O_TRUNC}, {"append", O_APPEND}, {"nofollow", O_NOFOLLOW},
    {"directory", O_DIRECTORY}, {"path", O_PATH},
  };
  int flags = 0;
  char *copy = strdup(list);
  for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
      if (strcmp(tok, table[i].name) == 0) flags |= table[i].flag;
  }
  free(copy);
  return flags;
}

/* "now" | "omit" | "SEC[.NSEC]" (SEC may be negative). */
static struct timespec time_arg(const char *s) {
  struct timespec t = {0, 0};
  if (strcmp(s, "now") == 0) t.tv_nsec = UTIME_NOW;
  else if (strcmp(s, "omit") == 0) t.tv_nsec = UTIME_OMIT;
  else {
    char *dot;
    t.tv_sec = strtoll(s, &dot, 10);
    if (*dot == '.') t.tv_nsec = strtol(dot + 1, NULL, 10);
  }
  return t;
}

static int stat_paths(int argc, char **argv, int times) {
  int failed = 0;
  for (int i = 0; i < argc; i++) {
    struct stat st;
    if (lstat(argv[i], &st) < 0) {
      printf("%s %s\n", argv[i], strerrorname_np(errno));
      failed = 1;
    } else if (times) {
      printf("%s a=%lld.%09ld m=%lld.%09ld c=%lld.%09ld\n", argv[i], (long long)st.st_atim.tv_sec,
             st.st_atim.tv_nsec, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
             (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
    } else {
      /* A directory's size is the filesystem's own business (tmpfs, ext4 and the mount differ). */
      printf("%s %s %04o nlink=%lu %u:%u rdev=%u:%u", argv[i], type_of(st.st_mode), st.st_mode & 07777,
             (unsigned long)st.st_nlink, st.st_uid, st.st_gid, major(st.st_rdev), minor(st.st_rdev));
      if (S_ISDIR(st.st_mode)) printf("\n");
      else printf(" size=%lld\n", (long long)st.st_size);
    }
  }
  return failed;
}

/* Open, unlink, then use the descriptor: fstat, write, read, truncate; and no stray names. */
static int unlinked(const char *path) {
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return report("open", -1);
  report("write", (int)write(fd, "before", 6));
  report("unlink", unlink(path));
  struct stat st;
  fstat(fd, &st);
  printf("after unlink: nlink=%lu size=%lld\n", (unsigned long)st.st_nlink, (long long)st.st_size);
  report("pwrite", (int)pwrite(fd, "-after", 6, 6));
  char buf[64] = {0};
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  printf("read %zd: %s\n", n, buf);
  report("ftruncate", ftruncate(fd, 3));
  fstat(fd, &st);
  printf("after truncate: nlink=%lu size=%lld\n", (unsigned long)st.st_nlink, (long long)st.st_size);
  report("fchmod", fchmod(fd, 0600));
  fstat(fd, &st);
  printf("mode %04o\n", st.st_mode & 07777);
  DIR *dir = opendir(".");
  int names = 0;
  for (struct dirent *e; dir && (e = readdir(dir));)
    if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)) names++;
  if (dir) closedir(dir);
  printf("names while open: %d\n", names);
  close(fd);
  printf("exists after close: %s\n", access(path, F_OK) == 0 ? "yes" : "no");
  return 0;
}

static int bind_socket(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int rc = report("bind", bind(fd, (struct sockaddr *)&addr, sizeof addr));
  close(fd);
  return rc;
}

static mode_t node_type(const char *t) {
  switch (t[0]) {
    case 'c': return S_IFCHR;
    case 'b': return S_IFBLK;
    case 'p': return S_IFIFO;
    case 's': return S_IFSOCK;
    default: return S_IFREG;
  }
}

static int with_fd(const char *op, const char *path, int flags, int (*fn)(int, char **), char **rest) {
  int fd = open(path, flags);
  if (fd < 0) return report(op, -1);
  int rc = fn(fd, rest);
  close(fd);
  return report(op, rc);
}
static int do_fchown(int fd, char **a) { return fchown(fd, (uid_t)atoi(a[0]), (gid_t)atoi(a[1])); }
static int do_fchmod(int fd, char **a) { return fchmod(fd, (mode_t)strtol(a[0], NULL, 8)); }
static int do_futimens(int fd, char **a) {
  struct timespec t[2] = {time_arg(a[0]), time_arg(a[1])};
  return futimens(fd, t);
}
static int do_pwrite(int fd, char **a) {
  ssize_t n = pwrite(fd, a[1], strlen(a[1]), (off_t)strtoll(a[0], NULL, 10));
  return n < 0 ? -1 : 0;
}
static int do_ftruncate(int fd, char **a) { return ftruncate(fd, (off_t)strtoll(a[0], NULL, 10)); }

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int access_mode(const char *s) {
  int mode = 0;
  for (; *s; s++) mode |= *s == 'r' ? R_OK : *s == 'w' ? W_OK : *s == 'x' ? X_OK : F_OK;
  return mode;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2) return 2;
  const char *op = argv[1];
  char **a = argv + 2;
  int n = argc - 2;
  struct timespec t[2];
  if (strcmp(op, "stat") == 0) return stat_paths(n, a, 0);
  if (strcmp(op, "times") == 0) return stat_paths(n, a, 1);
  if (strcmp(op, "unlinked") == 0 && n == 1) return unlinked(a[0]);
  if (strcmp(op, "bind") == 0 && n == 1) return bind_socket(a[0]);
  if (strcmp(op, "open") == 0 && n >= 2) {
    int fd = open(a[0], open_flags(a[1]), n > 2 ? (mode_t)strtol(a[2], NULL, 8) : 0644);
    if (fd >= 0) close(fd);
    return report(op, fd);
  }
  if (strcmp(op, "chown") == 0 && n == 3) return report(op, chown(a[0], atoi(a[1]), atoi(a[2])));
  if (strcmp(op, "lchown") == 0 && n == 3) return report(op, lchown(a[0], atoi(a[1]), atoi(a[2])));
  if (strcmp(op, "fchown") == 0 && n == 3) return with_fd(op, a[0], O_RDONLY, do_fchown, a + 1);
  if (strcmp(op, "chmod") == 0 && n == 2) return report(op, chmod(a[0], (mode_t)strtol(a[1], NULL, 8)));
  if (strcmp(op, "fchmod") == 0 && n == 2) return with_fd(op, a[0], O_RDONLY, do_fchmod, a + 1);
  if (strcmp(op, "mknod") == 0 && n == 4)
    return report(op, mknod(a[0], node_type(a[1]) | 0644, makedev(atoi(a[2]), atoi(a[3]))));
  if (strcmp(op, "mkdir") == 0 && n == 2) return report(op, mkdir(a[0], (mode_t)strtol(a[1], NULL, 8)));
  if (strcmp(op, "rmdir") == 0 && n == 1) return report(op, rmdir(a[0]));
  if (strcmp(op, "unlink") == 0 && n == 1) return report(op, unlink(a[0]));
  if (strcmp(op, "link") == 0 && n == 2) return report(op, link(a[0], a[1]));
  if (strcmp(op, "symlink") == 0 && n == 2) return report(op, symlink(a[0], a[1]));
  if (strcmp(op, "rename") == 0 && n == 2) return report(op, rename(a[0], a[1]));
  if (strcmp(op, "noreplace") == 0 && n == 2)
    return report(op, renameat2(AT_FDCWD, a[0], AT_FDCWD, a[1], RENAME_NOREPLACE));
  if (strcmp(op, "exchange") == 0 && n == 2)
    return report(op, renameat2(AT_FDCWD, a[0], AT_FDCWD, a[1], RENAME_EXCHANGE));
  if (strcmp(op, "truncate") == 0 && n == 2) return report(op, truncate(a[0], strtoll(a[1], NULL, 10)));
  if (strcmp(op, "ftruncate") == 0 && n == 2) return with_fd(op, a[0], O_WRONLY, do_ftruncate, a + 1);
  if (strcmp(op, "pwrite") == 0 && n == 3) return with_fd(op, a[0], O_WRONLY, do_pwrite, a + 1);
  if (strcmp(op, "access") == 0 && n == 2) return report(op, access(a[0], access_mode(a[1])));
  if (strcmp(op, "utimensat") == 0 && n >= 3) {
    t[0] = time_arg(a[1]);
    t[1] = time_arg(a[2]);
    int flags = n > 3 && strcmp(a[3], "nofollow") == 0 ? AT_SYMLINK_NOFOLLOW : 0;
    return report(op, utimensat(AT_FDCWD, a[0], t, flags));
  }
  if (strcmp(op, "futimens") == 0 && n == 3) return with_fd(op, a[0], O_RDONLY, do_futimens, a + 1);
  if (strcmp(op, "setxattr") == 0 && n == 3)
    return report(op, lsetxattr(a[0], a[1], a[2], strlen(a[2]), 0));
  if (strcmp(op, "getxattr") == 0 && n == 2) {
    char value[256];
    ssize_t len = lgetxattr(a[0], a[1], value, sizeof value);
    if (len >= 0) printf("%s %.*s\n", op, (int)len, value);
    return len < 0 ? report(op, -1) : 0;
  }
  if (strcmp(op, "removexattr") == 0 && n == 2) return report(op, lremovexattr(a[0], a[1]));
  if (strcmp(op, "listxattr") == 0 && n == 1) {
    char names[1024];
    ssize_t len = llistxattr(a[0], names, sizeof names);
    if (len < 0) return report(op, -1);
    /* The order of the list is the filesystem's own: print it sorted. */
    char *sorted[128];
    int count = 0;
    for (ssize_t i = 0; i < len && count < 128; i += (ssize_t)strlen(names + i) + 1) sorted[count++] = names + i;
    qsort(sorted, count, sizeof sorted[0], compare_names);
    printf("%s", op);
    for (int i = 0; i < count; i++) printf(" %s", sorted[i]);
    printf("\n");
    return 0;
  }
  fprintf(stderr, "posix-helper: unknown call %s/%d\n", op, n);
  return 2;
}
