// SPDX-License-Identifier: GPL-2.0
/*
 * Each claim was measured with strace on Debian 12 (glibc 2.36, Ruby 3.1,
 * Python 3.11), 100 calls each with TZ unset: Date.today and DateTime.now
 * stat /etc/localtime 100 times, Time.now, Time#localtime, #getlocal,
 * #to_s, #strftime("%Z"), Time.at, Time.local and Time.mktime not once
 * after the first (Ruby calls tzset() once, then localtime_r()); Python's
 * time.mktime() and time.tzset() 100 times, time.localtime(),
 * time.strftime(), time.ctime() and datetime.now() not after the first.
 * Setting the variable in the program (ENV["TZ"], os.environ["TZ"] and
 * time.tzset()) brought both to one stat.
 */
#include <string.h>

#include "runtime.h"
#include "util.h"

const char *runtime_name(enum runtime rt)
{
	switch (rt) {
	case RUNTIME_C:		return "c";
	case RUNTIME_RUBY:	return "ruby";
	case RUNTIME_PYTHON:	return "python";
	default:		return NULL;
	}
}

enum runtime runtime_of_lang(uint32_t lang)
{
	switch (lang) {
	case LANG_RUBY:		return RUNTIME_RUBY;
	case LANG_PYTHON:	return RUNTIME_PYTHON;
	default:		return RUNTIME_UNKNOWN;
	}
}

/*
 * The innermost of these frames runs the innermost script frame (3.11's
 * loop runs several Python frames in one C frame; the rest are outer).
 */
bool runtime_eval_function(uint32_t lang, const char *function)
{
	static const char *const python[] = {
		"_PyEval_EvalFrameDefault", "_PyEval_EvalFrame",
		"PyEval_EvalFrameEx", "PyEval_EvalFrame",
	};
	static const char *const ruby[] = {
		"vm_exec_core", "rb_vm_exec", "vm_exec",
	};
	const char *const *names = lang == LANG_PYTHON ? python : ruby;
	size_t n = lang == LANG_PYTHON ? ARRAY_SIZE(python) : ARRAY_SIZE(ruby);

	if (!function || (lang != LANG_PYTHON && lang != LANG_RUBY))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(function, names[i]))
			return true;
	return false;
}

enum runtime runtime_of_path(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	base = base ? base + 1 : path;
	if (!base)
		return RUNTIME_UNKNOWN;
	if (!strncmp(base, "lib", 3))
		base += 3;
	if (!strncmp(base, "ruby", 4))
		return RUNTIME_RUBY;
	if (!strncmp(base, "python", 6))
		return RUNTIME_PYTHON;
	return RUNTIME_UNKNOWN;
}

/* Ruby's probes name a singleton method by its class: Date, today. */
static const struct {
	const char *cls, *func, *name;
} ruby_class_methods[] = {
	{ "Date", "today", "Date.today" },
	{ "DateTime", "now", "DateTime.now" },
	{ "Time", "now", "Time.now" },
	{ "Time", "at", "Time.at" },
	{ "Time", "local", "Time.local" },
	{ "Time", "mktime", "Time.mktime" },
	{ "Process", "clock_gettime", "Process.clock_gettime" },
};

char *runtime_method_name(const struct lang_site_stat *l)
{
	if (!l->cls || runtime_of_lang(l->lang) != RUNTIME_RUBY)
		return xstrdup(l->func);
	for (size_t i = 0; i < ARRAY_SIZE(ruby_class_methods); i++)
		if (!strcmp(l->cls, ruby_class_methods[i].cls) &&
		    !strcmp(l->func, ruby_class_methods[i].func))
			return xstrdup(ruby_class_methods[i].name);
	return xasprintf("%s#%s", l->cls, l->func);
}

/* Python's probes see Python functions only: the C call comes from --libc. */
static char *python_site_name(const struct lang_site_stat *l)
{
	const char *call = runtime_libc_call(RUNTIME_PYTHON, l->libc_fn);

	if (call)
		return xasprintf("%s in %s()", call, l->func);
	return xasprintf("%s()", l->func);
}

char *runtime_site_name(const struct lang_site_stat *l)
{
	switch (runtime_of_lang(l->lang)) {
	case RUNTIME_RUBY:	return runtime_method_name(l);
	case RUNTIME_PYTHON:	return python_site_name(l);
	default:		return xstrdup(l->func);
	}
}

const char *runtime_libc_call(enum runtime rt, uint32_t libc_fn)
{
	if (rt != RUNTIME_PYTHON)
		return NULL;
	switch (libc_fn) {
	case LIBC_MKTIME:	return "time.mktime()";
	case LIBC_TZSET:	return "time.tzset()";
	default:		return NULL;
	}
}

const char *runtime_tz_rechecks(enum runtime rt)
{
	switch (rt) {
	case RUNTIME_C:
		return "localtime(), ctime(), mktime() and tzset()";
	case RUNTIME_RUBY:
		return "Date.today and DateTime.now";
	case RUNTIME_PYTHON:
		return "time.mktime() and time.tzset()";
	default:
		return NULL;
	}
}

const char *runtime_named_zone_fix(enum runtime rt)
{
	if (rt == RUNTIME_PYTHON)
		return "zoneinfo.ZoneInfo(key) keeps each zone after its "
		       "first load, ZoneInfo.no_cache(key) and "
		       "ZoneInfo.clear_cache() read the file again: create "
		       "each zone once (a module-level constant) and reuse it";
	return NULL;
}

const char *runtime_tz_fix(enum runtime rt)
{
	switch (rt) {
	case RUNTIME_C:
		return "localtime(), ctime(), mktime() and tzset() "
		       "re-check the zone file on every call, localtime_r() "
		       "does not: call setenv(\"TZ\", \":/etc/localtime\", 1) "
		       "at start-up, before fork(), or use localtime_r()";
	case RUNTIME_RUBY:
		return "Date.today and DateTime.now re-check the zone "
		       "file on every call, Time.now, Time#localtime and "
		       "Time#strftime do not: set ENV[\"TZ\"] = "
		       "\":/etc/localtime\" at boot, before any worker is forked";
	case RUNTIME_PYTHON:
		return "time.mktime() and time.tzset() re-check the "
		       "zone file on every call, time.localtime(), "
		       "time.strftime() and datetime.now() do not: set "
		       "os.environ[\"TZ\"] = \":/etc/localtime\" and call "
		       "time.tzset() at start-up, before the pool or workers "
		       "start";
	default:
		return NULL;
	}
}
