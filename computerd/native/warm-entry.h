/*
 * A warm entry: a command's sandbox set up ahead of the command (computerd-enter's namespaces
 * joined and made, its /proc and /dev mounted) by computerd-spawner, whose pid 1 waits on a
 * SOCK_SEQPACKET socket for the command: one message with its directory, argv and environment,
 * carrying its stdin, stdout and stderr as SCM_RIGHTS. spawner.c sends it, enter.c receives it.
 */
#ifndef COMPUTERD_WARM_ENTRY_H
#define COMPUTERD_WARM_ENTRY_H

/* The largest message a warm entry takes; a larger command goes the cold way. */
#define WARM_MESSAGE_MAX (64 * 1024)

/* A received command: its fields point into `buffer` (freed with warm_release). */
struct warm_command {
  char *buffer;
  const char *cwd; /* "" for none */
  char **argv;
  char **envp;
  int fds[3]; /* stdin, stdout, stderr */
};

/* The byte a warm entry's pid 1 sends once it waits for its command. */
#define WARM_READY 'r'

/* Sends the command; 0, or an errno (EMSGSIZE: too large for a warm entry). */
int warm_send(int sock, const int fds[3], const char *cwd, char *const *argv, char *const *envp);

/* Receives the command; 0, or -1 (the socket closed or the message was malformed). */
int warm_receive(int sock, struct warm_command *out);

void warm_release(struct warm_command *command);

#endif
