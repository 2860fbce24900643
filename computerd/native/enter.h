/* computerd-enter's work (enter.c), for its program (enter-main.c) and computerd-spawner. */
#ifndef COMPUTERD_ENTER_H
#define COMPUTERD_ENTER_H

/* What computerd-enter's arguments name: HOLDER NS-INODES [--cwd /DIR] -- CMD [ARG...]. */
struct enter_args {
  const char *holder;
  const char *inodes;
  const char *cwd; /* NULL: / */
  char **argv;
};

/* Parses computerd-enter's argv (argv[0] its name); 0, or -1 when it is not a valid call. */
int enter_parse(int argc, char **argv, struct enter_args *out);

/*
 * Enters the held sandbox and runs the command there; answers the status its sandbox ended
 * with (exits 125 when it cannot be entered). With `warm` >= 0 (a SOCK_SEQPACKET socket) it
 * runs not args->argv but the command that comes on `warm` once the sandbox is set up.
 */
int enter_command(const struct enter_args *args, int warm);

#endif
