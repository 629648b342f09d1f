#!/bin/sh
# Runs ifsim ($IFSIM_UNDER_VALGRIND) under valgrind's memcheck: any invalid
# access, use of uninitialised memory or leak (definite, indirect or
# possible) makes it exit 99, which the end-to-end test scripts report as
# a wrong status.  No suppressions: GLib's and json-glib's one-time
# allocations (type system, quarks, the GResource) stay reachable and are
# not reported by --leak-check=full.
exec valgrind -q --leak-check=full \
  --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
  "$IFSIM_UNDER_VALGRIND" "$@"
