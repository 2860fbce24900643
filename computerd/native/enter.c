/*
 * computerd-enter: runs one command in a computer's held sandbox (computerd/src/exec/
 * held-sandbox.ts) instead of starting a bubblewrap sandbox for it, with what that bubblewrap
 * would have given the command:
 *
 *   computerd-enter HOLDER NS-INODES [--cwd DIR] -- CMD [ARG...]
 *
 * HOLDER is the host pid of the held sandbox's first process (bubblewrap's pid 1 inside), whose
 * namespaces were made by the same `computerd-userns run … bwrap …` a command would get.
 * NS-INODES lists the inode of each of its namespaces as computerd saw them when the sandbox
 * started (`net:N,user:N,mnt:N,uts:N,ipc:N,cgroup:N`): a namespace that is not the one named
 * (the holder died and its pid was reused) refuses the command (exit 125), so a command never
 * lands in anything but its own computer's sandbox.
 *
 * The command joins the holder's network, user, mount, uts and cgroup namespaces (in that
 * order: the network one may belong to the host's user namespace), becomes uid and gid 0 there
 * (the computer's root: host id BASE), and gets pid, mount, ipc, uts and cgroup namespaces of
 * its own, as bubblewrap's --unshare-* give each command: a fresh /proc of its pid namespace
 * and a fresh /dev (a tmpfs with null, zero, full, random, urandom and tty bound from the held
 * one, a new devpts instance, the same links) replace the holder's, so nothing of the holder is
 * in reach, and mounts a command makes stay in its own namespace (the copy is a slave: nothing
 * propagates back). As under bubblewrap: a new session, no_new_privs, a pid 1 that reaps and
 * exits with the command's status (128+N for a signal), and every process of the command dies
 * when it does, when this process is killed, or when computerd dies.
 *
 * With --cwd the command starts in DIR (an absolute path without `..`, resolved inside the
 * sandbox): what `cd -- DIR` would do before the command's shell, without a shell of its own to
 * do it (one exec fewer per command). A DIR that cannot be entered fails the command as that
 * `cd` would: a message and exit code 2, the command not run.
 *
 * Must run as root on the host. Built by `npm run build:native -w computerd` (build.sh), as
 * computerd-enter (enter-main.c) and inside computerd-spawner, which runs it in a child of its
 * own, ahead of the command (a warm entry, warm-entry.h), instead of executing this program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/mount.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enter.h"
#include "warm-entry.h"

static void die(const char *what) {
  fprintf(stderr, "computerd-enter: %s: %s\n", what, strerror(errno));
  _exit(125);
}

static void refuse(const char *what) {
  fprintf(stderr, "computerd-enter: %s\n", what);
  _exit(125);
}

/* The namespaces joined, in the order they are joined. */
static const char *const JOINED[] = {"net", "user", "mnt", "uts", "cgroup"};
enum { N_JOINED = sizeof JOINED / sizeof JOINED[0] };

/* The inode `name:N` in `list` names for namespace `name` (0 when absent). */
static unsigned long long expected_inode(const char *list, const char *name) {
  size_t len = strlen(name);
  for (const char *at = list; at && *at; at = strchr(at, ',') ? strchr(at, ',') + 1 : NULL) {
    if (strncmp(at, name, len) == 0 && at[len] == ':') return strtoull(at + len + 1, NULL, 10);
  }
  return 0;
}

/* Opens the holder's namespace `name`, refusing one that is not the expected namespace. */
static int open_namespace(const char *holder, const char *name, const char *inodes) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%s/ns/%s", holder, name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) die(path);
  struct stat st;
  if (fstat(fd, &st) < 0) die(path);
  unsigned long long want = expected_inode(inodes, name);
  if (want == 0 || (unsigned long long)st.st_ino != want) refuse("the held sandbox is gone");
  return fd;
}

/* The device nodes bubblewrap's --dev binds from the host, and its links. */
static const char *const DEVICES[] = {"null", "zero", "full", "random", "urandom", "tty"};
enum { N_DEVICES = sizeof DEVICES / sizeof DEVICES[0] };
static const char *const LINKS[][2] = {
    {"/proc/self/fd", "/dev/fd"},          {"/proc/self/fd/0", "/dev/stdin"},
    {"/proc/self/fd/1", "/dev/stdout"},    {"/proc/self/fd/2", "/dev/stderr"},
    {"/proc/kcore", "/dev/core"},          {"pts/ptmx", "/dev/ptmx"},
};
enum { N_LINKS = sizeof LINKS / sizeof LINKS[0] };

/* A fresh /proc and /dev in place of the holder's (this process is pid 1 of a new namespace). */
static void fresh_proc_and_dev(void) {
  if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) die("make / a slave");
  int devices[N_DEVICES];
  for (int i = 0; i < N_DEVICES; i++) {
    char path[32];
    snprintf(path, sizeof path, "/dev/%s", DEVICES[i]);
    devices[i] = (int)syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (devices[i] < 0) die(path);
  }
  /* Made while the holder's /proc is still there: the kernel mounts a proc only where one is. */
  int proc = (int)syscall(SYS_fsopen, "proc", FSOPEN_CLOEXEC);
  if (proc < 0) die("fsopen(proc)");
  if (syscall(SYS_fsconfig, proc, FSCONFIG_SET_STRING, "source", "proc", 0) < 0) die("fsconfig(proc)");
  if (syscall(SYS_fsconfig, proc, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) die("fsconfig(proc)");
  int proc_mount = (int)syscall(SYS_fsmount, proc, FSMOUNT_CLOEXEC,
                                MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
  if (proc_mount < 0) die("fsmount(proc)");
  close(proc);
  if (umount2("/proc", MNT_DETACH) < 0) die("umount /proc");
  if (syscall(SYS_move_mount, proc_mount, "", AT_FDCWD, "/proc", MOVE_MOUNT_F_EMPTY_PATH) < 0) die("/proc");
  close(proc_mount);
  if (umount2("/dev", MNT_DETACH) < 0) die("umount /dev");
  if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) die("mount /dev");
  for (int i = 0; i < N_DEVICES; i++) {
    char path[32];
    snprintf(path, sizeof path, "/dev/%s", DEVICES[i]);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (fd < 0) die(path);
    close(fd);
    if (syscall(SYS_move_mount, devices[i], "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) < 0) die(path);
    close(devices[i]);
  }
  for (int i = 0; i < N_LINKS; i++) {
    if (symlink(LINKS[i][0], LINKS[i][1]) < 0) die(LINKS[i][1]);
  }
  if (mkdir("/dev/shm", 0755) < 0) die("/dev/shm");
  if (mkdir("/dev/pts", 0755) < 0) die("/dev/pts");
  if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") < 0)
    die("mount /dev/pts");
}

/* 128+N for a signal, the code otherwise (what bubblewrap's own processes exit with). */
static int exit_code(int status) {
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}

/* Enters `cwd` (NULL: stays at /) as the command's shell would have with `cd -- cwd`, which
   also exported OLDPWD (the directory it left: /); PWD is in the command's environment already. */
static void enter_cwd(const char *cwd) {
  if (cwd == NULL) return;
  if (chdir(cwd) < 0) {
    fprintf(stderr, "computerd-exec: cd: can't cd to %s: %s\n", cwd, strerror(errno));
    _exit(2);
  }
  if (setenv("OLDPWD", "/", 1) < 0) die("setenv");
}

/* The command of a warm entry (warm-entry.h), once it comes: its stdio, directory and
   environment are this process's from here, for the command's fork. */
static void take_warm_command(int warm, const char **cwd, char ***argv) {
  char ready = WARM_READY;
  static struct warm_command command;
  if (write(warm, &ready, 1) != 1 || warm_receive(warm, &command) < 0) _exit(125);
  close(warm);
  for (int fd = 0; fd < 3; fd++) {
    if (dup2(command.fds[fd], fd) < 0) _exit(125);
    close(command.fds[fd]);
    command.fds[fd] = -1;
  }
  environ = command.envp;
  *cwd = command.cwd[0] ? command.cwd : NULL;
  *argv = command.argv;
}

/* Pid 1 of the command's namespace: starts the command, reaps, exits with its status. With
   `warm` >= 0 the command is the one that comes on that socket once all is set up. */
static void init(int alive, const char *cwd, char **argv, int warm) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) die("prctl(PR_SET_PDEATHSIG)");
  /* The parent may have died before the line above (getppid says 0 across namespaces): its
     end of the `alive` pipe is then closed. */
  struct pollfd gone = {.fd = alive, .events = POLLIN};
  if (poll(&gone, 1, 0) != 0) _exit(125);
  close(alive);
  /* As --new-session: the command cannot reach computerd's terminal (TIOCSTI). */
  if (setsid() < 0) die("setsid");
  fresh_proc_and_dev();
  if (chdir("/") < 0) die("chdir /");
  if (warm >= 0) take_warm_command(warm, &cwd, &argv);
  pid_t command = fork();
  if (command < 0) die("fork");
  if (command == 0) {
    enter_cwd(cwd);
    execvp(argv[0], argv);
    die(argv[0]);
  }
  /* The command's stdio are its own: pid 1 holds no end of its pipes (their readers see the
     end once the command's processes are done with them). */
  if (warm >= 0) {
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3 && null >= 0; fd++) dup2(null, fd);
  }
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) _exit(125);
    if (pid == command) _exit(exit_code(status));
  }
}

int enter_parse(int argc, char **argv, struct enter_args *out) {
  out->cwd = NULL;
  int rest = 3;
  if (argc > 4 && strcmp(argv[3], "--cwd") == 0) {
    out->cwd = argv[4];
    rest = 5;
  }
  if (argc < rest + 2 || strcmp(argv[rest], "--") != 0 || (out->cwd != NULL && out->cwd[0] != '/')) return -1;
  out->holder = argv[1];
  out->inodes = argv[2];
  out->argv = argv + rest + 1;
  return 0;
}

int enter_command(const struct enter_args *args, int warm) {
  pid_t parent = getppid();
  int fds[N_JOINED];
  for (int i = 0; i < N_JOINED; i++) fds[i] = open_namespace(args->holder, JOINED[i], args->inodes);
  for (int i = 0; i < N_JOINED; i++) {
    if (setns(fds[i], 0) < 0) die(JOINED[i]);
    close(fds[i]);
  }
  if (setgroups(0, NULL) < 0) die("setgroups");
  if (setresgid(0, 0, 0) < 0) die("setresgid");
  if (setresuid(0, 0, 0) < 0) die("setresuid");
  /* Set only now: the kernel clears the parent-death signal whenever credentials change, and
     joining the user namespace and becoming its root both do. A parent that went before this
     line is no longer ours (the pid namespace is still the starter's, so getppid tells). */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) die("prctl(PR_SET_PDEATHSIG)");
  if (getppid() != parent) _exit(125);
  if (unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS) < 0) die("unshare");
  /* As --unshare-cgroup-try: a namespace of its own where the kernel has them. */
  if (unshare(CLONE_NEWCGROUP) < 0 && errno != EINVAL) die("unshare(CLONE_NEWCGROUP)");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) die("prctl(PR_SET_NO_NEW_PRIVS)");
  int alive[2];
  if (pipe2(alive, O_CLOEXEC) < 0) die("pipe");
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    close(alive[1]);
    init(alive[0], args->cwd, args->argv, warm);
  }
  close(alive[0]);
  if (warm >= 0) close(warm);
  for (;;) {
    int status = 0;
    if (waitpid(child, &status, 0) < 0) {
      if (errno == EINTR) continue;
      die("waitpid");
    }
    return exit_code(status);
  }
}
