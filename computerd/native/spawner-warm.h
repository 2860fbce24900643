/*
 * computerd-spawner's warm entry (warm-entry.h): after a command entered a held sandbox, the
 * spawner sets up the next command's sandbox in that held sandbox ahead of time, in a child
 * running computerd-enter's code, so the next command there only has to be sent to it.
 */
#ifndef COMPUTERD_SPAWNER_WARM_H
#define COMPUTERD_SPAWNER_WARM_H

#include <sys/types.h>

#include "enter.h"

/* Whether `program` is the computerd-enter beside this spawner (its calls can be warm). */
int warm_program(const char *program);

/*
 * Hands the command `args` names (with stdio `fds`: stdin, stdout, stderr, and `envp`) to the
 * warm entry when one is ready in the same held sandbox; answers its pid (the command's, as
 * computerd-enter's would be), or -1 when it goes the cold way.
 */
pid_t warm_take(const struct enter_args *args, const int fds[3], char *const *envp);

/* Readies a warm entry in the held sandbox `args` names (replacing one in another). */
void warm_up(const struct enter_args *args);

/* The socket to poll while the warm entry gets ready (-1: nothing to wait for). */
int warm_waiting_fd(void);

/* That socket is readable: the entry is ready, or it failed. */
void warm_readable(void);

/* Child `pid` ended: true when it was the warm entry's (forgotten then). */
int warm_reaped(pid_t pid);

#endif
