/* What a child of computerd-spawner does first, whatever it runs (spawner.c, spawner-warm.c). */
#ifndef COMPUTERD_CHILD_PRELUDE_H
#define COMPUTERD_CHILD_PRELUDE_H

#include <errno.h>
#include <signal.h>
#include <unistd.h>

/* Signals unblocked and at their defaults, a session of its own; 0 or an errno. */
static inline int child_prelude(void) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);
  return setsid() < 0 ? errno : 0;
}

#endif
