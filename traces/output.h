/* TrcOutputs: the files one run writes, replaced together or not at all.
 *
 * Each text is written at once to a temporary file next to its destination
 * (".NAME.XXXXXX", same directory, so the rename cannot cross file
 * systems), and flushed to disk: a full disk or a missing directory fails
 * before any earlier result is touched.  trc_outputs_commit() renames them
 * all into place; freeing the set without a commit (an error, Ctrl-C)
 * removes the temporaries.  So a failed or interrupted run leaves no
 * partial output and the files of an earlier run as they were.
 *
 * A commit first checks that what the run printed reached standard
 * output (a full disk: no file is replaced then), writes devices, FIFOs
 * and "-", gives each file it replaces a second name (a hard link beside
 * it), and renames; when a later rename fails after an earlier one
 * succeeded (an immutable file, a directory made read-only in between),
 * the earlier files are put back from their second names.  Only a file
 * system without hard links leaves such a file new; the error says which.
 *
 * Only regular files are replaced so (ifsim runs as root): a symbolic
 * link is followed and its final target written as above, the link kept;
 * a device or FIFO is opened when added (a FIFO nobody reads is refused
 * then, not waited on) and written in place at commit, before any rename;
 * a directory or socket is refused (docs/robustness.md). */
#ifndef TRACES_OUTPUT_H
#define TRACES_OUTPUT_H

#include <glib.h>

typedef struct TrcOutputs TrcOutputs;

TrcOutputs *trc_outputs_new(void);
/* Removes the temporaries of what was not committed. */
void trc_outputs_free(TrcOutputs *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TrcOutputs, trc_outputs_free)

/* Writes text (taken, g_free'd) to a temporary file for path; "-" keeps it
 * for standard output, printed at commit.  Fails, with "PATH: " leading
 * the message, when the file cannot be written or path was already given
 * for another output of the set. */
gboolean trc_outputs_add(TrcOutputs *o, const char *path, char *text,
                         GError **error);

/* Creates an empty temporary file for path, for another program to write
 * (gnuplot's plot); returns its name, owned by o. */
const char *trc_outputs_reserve(TrcOutputs *o, const char *path,
                                GError **error);

/* Prints the "-" texts and renames every temporary into place, all or
 * none (above).  Refuses, removing the temporaries, when the process was
 * interrupted (sim/interrupt.h) or standard output failed. */
gboolean trc_outputs_commit(TrcOutputs *o, GError **error);

/* Whether a commit of this process has put a file in place (a message
 * about a later failure says so). */
gboolean trc_outputs_wrote_files(void);

/* Writes len bytes to fd whole, through short writes and EINTR; FALSE
 * (errno set) on an error. */
gboolean trc_write_all(int fd, const void *data, gsize len);

/* One file, atomically: new, add, commit, free. */
gboolean trc_write_text(const char *path, char *text, GError **error);

#endif /* TRACES_OUTPUT_H */
