/* computerd-enter: see enter.c. */
#include <stdio.h>

#include "enter.h"

int main(int argc, char **argv) {
  struct enter_args args;
  if (enter_parse(argc, argv, &args) < 0) {
    fprintf(stderr, "usage: computerd-enter HOLDER NS-INODES [--cwd /DIR] -- CMD [ARG...]\n");
    return 2;
  }
  return enter_command(&args, -1);
}
