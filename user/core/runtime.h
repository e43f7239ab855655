/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which runtime made a process's time calls, and what its calls do to
 * the zone file: the names a user of that language writes, which of them
 * re-check the file on every call while TZ is unset, and where to set TZ
 * in that language.
 */
#ifndef CLOCKTRACE_RUNTIME_H
#define CLOCKTRACE_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

enum runtime { RUNTIME_UNKNOWN, RUNTIME_C, RUNTIME_RUBY, RUNTIME_PYTHON };

/*
 * Is function (a native frame's) the interpreter's loop that runs the
 * script frames of lang?  "_PyEval_EvalFrameDefault", "vm_exec_core".
 */
bool runtime_eval_function(uint32_t lang, const char *function);
/* "c", "ruby", "python"; NULL when unknown. */
const char *runtime_name(enum runtime rt);
/* From --lang's enum lang. */
enum runtime runtime_of_lang(uint32_t lang);
/* From an executable's or library's path: ruby*, libruby*, python*, libpython*. */
enum runtime runtime_of_path(const char *path);
/*
 * The method or function of a script site as its language writes it:
 * "Date.today", "Process.clock_gettime", "Time#localtime", "task".
 * Allocated.
 */
char *runtime_method_name(const struct lang_site_stat *l);
/*
 * A script site in its language's notation, for a sentence: "Date.today",
 * "Time#localtime", "task()", and with the C function under it
 * "time.mktime() in task()".  Allocated.
 */
char *runtime_site_name(const struct lang_site_stat *l);
/* The runtime's call behind a C library function: "time.mktime()", or NULL. */
const char *runtime_libc_call(enum runtime rt, uint32_t libc_fn);
/*
 * What re-checks the zone file and what does not in that runtime, and
 * where to set TZ in its code; NULL when unknown.
 */
const char *runtime_tz_fix(enum runtime rt);
/* The fix, in rt's words, for a zone loaded by name again and again. */
const char *runtime_named_zone_fix(enum runtime rt);
/* The calls that re-check it there: "Date.today and DateTime.now". */
const char *runtime_tz_rechecks(enum runtime rt);

#endif /* CLOCKTRACE_RUNTIME_H */
