/* The ifsim command: see tools/cli.c for the subcommands. */
#include "tools/cli.h"

int main(int argc, char **argv)
{
  return cli_main(argc, argv);
}
