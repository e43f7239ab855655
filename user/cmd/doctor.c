// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace doctor: one line per check, "ok|warn|fail  check: detail",
 * where a warn or fail says what to do.  Exit 0 when tracing can work
 * here, 1 when it cannot, 125 on bad usage or a bad pid.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "cli.h"
#include "container.h"
#include "container_names.h"
#include "procfs.h"
#include "clock_cost.h"
#include "clocks.h"
#include "doctor.h"
#include "doctor_proc.h"
#include "escape.h"
#include "json.h"
#include "kfeatures.h"
#include "privs.h"
#include "util.h"
#include "variant.h"

#define CS_DIR "/sys/devices/system/clocksource/clocksource0"

/*
 * The oldest kernel of the Makefile's VMTEST_KERNELS, which the README
 * names as the minimum (tests/docs.bats holds the three together).
 */
#define OLDEST_TESTED_MAJOR	5
#define OLDEST_TESTED_MINOR	10

static void check_kernel(struct checks *c, const struct kernel_features *kf)
{
	int v = kf->major * 100 + kf->minor;

	if (v >= 511)
		check_add(c, "kernel", CHECK_OK, "%s %s", kf->release,
			  kf->machine);
	else if (v >= OLDEST_TESTED_MAJOR * 100 + OLDEST_TESTED_MINOR)
		check_add(c, "kernel", CHECK_OK, "%s %s: before 5.11 BPF memory "
			  "counts against RLIMIT_MEMLOCK (libbpf raises it)",
			  kf->release, kf->machine);
	else if (v >= 508)
		check_add(c, "kernel", CHECK_WARN, "%s %s: older than Linux "
			  "%d.%d, the oldest kernel clocktrace is tested on",
			  kf->release, kf->machine, OLDEST_TESTED_MAJOR,
			  OLDEST_TESTED_MINOR);
	else
		check_add(c, "kernel", CHECK_FAIL, "%s: clocktrace needs Linux "
			  ">= 5.8 (ring buffer, tp_btf)", kf->release);
}

static void check_btf(struct checks *c, const struct kernel_features *kf)
{
	if (kf->btf)
		check_add(c, "btf", CHECK_OK, "/sys/kernel/btf/vmlinux "
			  "(%u types)", kf->btf_types);
	else
		check_add(c, "btf", CHECK_FAIL, "this kernel has no BTF "
			  "(/sys/kernel/btf/vmlinux): clocktrace needs a kernel "
			  "built with CONFIG_DEBUG_INFO_BTF=y");
}

static void check_permission(struct checks *c,
			     const struct kernel_features *kf)
{
	if (kf->cap_sys_admin)
		check_add(c, "permission", CHECK_OK, "uid %u with CAP_SYS_ADMIN",
			  (unsigned int)kf->euid);
	else if (kf->privileged)
		check_add(c, "permission", CHECK_OK, "uid %u with CAP_BPF and "
			  "CAP_PERFMON", (unsigned int)kf->euid);
	else
		check_add(c, "permission", CHECK_FAIL, "uid %u without CAP_BPF "
			  "and CAP_PERFMON%s%s: run as root (sudo clocktrace "
			  "...) or grant cap_bpf,cap_perfmon",
			  (unsigned int)kf->euid, kf->cap_bpf ? " (has CAP_BPF)" : "",
			  kf->cap_perfmon ? " (has CAP_PERFMON)" : "");
}

/* The set a session runs with once attached (privs.h), per mode. */
static void check_kept_caps(struct checks *c)
{
	char base[128], signals[32], later[128];
	const struct privs_need plain = {0};
	const struct privs_need run = { .signals_prog = true };
	const struct privs_need probes = { .attaches_later = true };

	privs_names(privs_kept(&plain), base, sizeof(base));
	privs_names(privs_kept(&run) & ~privs_kept(&plain), signals,
		    sizeof(signals));
	privs_names(privs_kept(&probes) & ~privs_kept(&plain), later,
		    sizeof(later));
	check_add(c, "capabilities after attach", CHECK_OK, "attach and top "
		  "keep %s; run adds %s; --libc or --lang add %s; every other "
		  "capability is dropped", base, signals, later);
}

static void feature_line(struct checks *c, const char *name,
			 const struct feature *f, enum check_status if_no,
			 const char *need)
{
	enum check_status st = f->state == FEAT_YES ? CHECK_OK :
			       f->state == FEAT_NO ? if_no : CHECK_WARN;

	/* What we do not need cannot be a problem, known or not. */
	if (if_no == CHECK_OK)
		st = CHECK_OK;

	check_add(c, name, st, "%s: %s%s%s", feat_word(f->state), f->how,
		  need ? "; " : "", need ? need : "");
}

static void check_bpf(struct checks *c, const struct kernel_features *kf)
{
	char name[32];

	/* Without privilege the permission line already says what to do. */
	if (kf->privileged || kf->skeleton.state != FEAT_UNKNOWN)
		feature_line(c, "bpf object", &kf->skeleton, CHECK_FAIL, NULL);
	for (int i = 0; i < FEAT_NR_TRACEPOINTS; i++) {
		snprintf(name, sizeof(name), "tp_btf %s",
			 feature_tracepoints[i]);
		feature_line(c, name, &kf->tracepoint[i], CHECK_FAIL,
			     kf->skeleton.state == FEAT_UNKNOWN ?
			     "attach not tried" : NULL);
	}
	feature_line(c, "uprobe", &kf->uprobe, CHECK_WARN,
		     kf->uprobe.state == FEAT_NO ?
		     "--libc cannot work (CONFIG_UPROBE_EVENTS)" :
		     "used by --libc");
	feature_line(c, "uprobe_multi", &kf->uprobe_multi, CHECK_WARN,
		     kf->uprobe_multi.state == FEAT_YES ?
		     "--libc attaches and detaches in one link" :
		     "--libc falls back to one uprobe per function "
		     "(~0.1 s each to detach)");
	/* Not needed: reported so that nobody goes looking for them. */
	feature_line(c, "kprobe", &kf->kprobe, CHECK_OK, "not needed");
	feature_line(c, "fentry", &kf->fentry, CHECK_OK, "--attach fentry "
		     "needs it on the syscall functions (see attach)");
	feature_line(c, "ringbuf", &kf->ringbuf, CHECK_FAIL,
		     kf->ringbuf.state == FEAT_NO ? "needs Linux >= 5.8" : NULL);
}

/*
 * One line per feature that picks a variant of the BPF object: the same
 * probe run uses, so these lines say what run will load.  Only --libc can
 * be lost; the other fallbacks trace as exactly.
 */
static void check_variant(struct checks *c, const struct kernel_features *kf)
{
	char name[40], found[128];

	if (!kf->bpf)
		return;
	for (int f = 0; f < BPF_FEAT_MAX; f++) {
		bool has = kf->bpf->has[f];

		snprintf(name, sizeof(name), "variant %s", bpf_feature_name(f));
		if (has)
			snprintf(found, sizeof(found), "yes");
		else
			snprintf(found, sizeof(found), "no (%s)",
				 bpf_feature_why(f));
		check_add(c, name, CHECK_OK, "%s: %s", found,
			  bpf_feature_effect(f, has));
	}
}

/* What --attach auto takes here: the same probe as run's. */
static void check_attach(struct checks *c, const struct kernel_features *kf)
{
	if (kf->attach == ATTACH_AUTO)
		return;
	if (kf->attach == ATTACH_FENTRY)
		check_add(c, "attach", CHECK_OK, "fentry (%s): only the counted "
			  "syscalls pass through clocktrace's programs",
			  kf->attach_why);
	else
		check_add(c, "attach", CHECK_OK, "tracepoint (%s): while "
			  "tracing, every syscall of every process passes the "
			  "raw syscall tracepoints", kf->attach_why);
}

/*
 * Another available clocksource the vDSO can read, to suggest; NULL if
 * none.
 */
static const char *vdso_alternative(char *avail, const char *cs)
{
	for (char *s = strtok(avail, " "); s; s = strtok(NULL, " "))
		if (clocksource_has_vdso(s) && strcmp(s, cs))
			return s;
	return NULL;
}

/*
 * The clocksource, whether the vDSO serves the clocks with it (by name and
 * as timed: a mode can be withdrawn), and what a read costs each way here:
 * the price the vdso-fallback finding puts on every read that enters.
 */
static void check_clocksource(struct checks *c, char *cs, size_t size)
{
	char avail[256] = "", copy[256];
	struct clock_read_cost cost;
	const char *alt;

	if (read_clocksource(cs, size, "current_clocksource")) {
		cs[0] = '\0';
		check_add(c, "clocksource", CHECK_WARN, "cannot read "
			  CS_DIR "/current_clocksource");
		return;
	}
	read_clocksource(avail, sizeof(avail), "available_clocksource");
	clock_cost_measure(&cost);
	if (clocksource_has_vdso(cs) && !clock_cost_falls_back(&cost)) {
		check_add(c, "clocksource", CHECK_OK, "%s (available: %s): the "
			  "vDSO serves the clocks, %.0f ns a read here against "
			  "%.0f ns by syscall", cs, avail, cost.libc_ns,
			  cost.syscall_ns);
		return;
	}
	snprintf(copy, sizeof(copy), "%s", avail);
	alt = vdso_alternative(copy, cs);
	check_add(c, "clocksource", CHECK_WARN, "%s %s: every clock_gettime() "
		  "enters the kernel, %.0f ns a read here (available: %s); a "
		  "clocksource with a vDSO mode saves at least %.0f ns a read, "
		  "the kernel's entry and exit%s%s%s", cs,
		  clocksource_has_vdso(cs) ? "has a vDSO mode but the vDSO "
		  "fell back to the kernel" : "has no vDSO mode",
		  cost.libc_ns, avail, clock_cost_saving_ns(&cost),
		  alt ? "; try: echo " : "", alt ? alt : "",
		  alt ? " > " CS_DIR "/current_clocksource" : "");
}

static void check_vdso(struct checks *c, const char *cs)
{
	char served[256] = "", not_served[256] = "", buf[32];
	bool mapped = vdso_mapped();
	const char *why_not = NULL, *why;

	for (int32_t clk = 0; clk <= CLOCK_STANDARD_MAX; clk++) {
		bool yes;
		char *list;
		const char *name;

		if (!clock_is_standard(clk))
			continue;
		yes = clock_vdso_serves(clk, cs, mapped, &why);
		list = yes ? served : not_served;
		name = clock_name(clk, buf, sizeof(buf));
		if (!yes && !why_not)
			why_not = why;
		snprintf(list + strlen(list), 256 - strlen(list), "%s%s",
			 *list ? " " : "", name + 6);
	}
	check_add(c, "vdso", mapped ? CHECK_OK : CHECK_WARN,
		  "%s; serves %s%s%s%s%s%s", mapped ? "mapped" : "not mapped",
		  *served ? served : "nothing", *not_served ? "; not " : "",
		  not_served, *not_served ? " (" : "",
		  *not_served ? why_not : "", *not_served ? ")" : "");
}

static void check_libc(struct checks *c)
{
#ifdef __GLIBC__
	check_add(c, "libc", CHECK_OK, "glibc %s (this tool's)",
		  gnu_get_libc_version());
#else
	check_add(c, "libc", CHECK_OK, "not glibc (this tool's)");
#endif
}

static void print_text(FILE *f, const struct checks *c)
{
	for (size_t i = 0; i < c->n; i++) {
		fprintf(f, "%-4s  %s: ", check_word(c->v[i].status),
			c->v[i].name);
		/* A detail may hold a process's comm, environment, paths. */
		escape_print(f, c->v[i].detail, ESCAPE_TEXT);
		fputc('\n', f);
	}
	fprintf(f, checks_failed(c) ?
		"tracing cannot work here: fix the fail lines above\n" :
		"tracing can work here\n");
}

static void json_process(struct json *j, const struct proc_facts *p)
{
	enum check_status st;
	char buf[512];

	json_obj_begin(j, "process");
	json_i64(j, "pid", p->pid);
	json_str(j, "comm", p->comm);
	json_str(j, "tz", p->tz_state > 0 ? p->tz : NULL);
	if (p->tz_state < 0)
		json_null(j, "tz_set");
	else
		json_bool(j, "tz_set", p->tz_state > 0);
	json_str(j, "tzdir", p->tzdir_state > 0 ? p->tzdir : NULL);
	json_str(j, "libc", libc_kind_name(p->libc));
	json_str(j, "libc_path", p->libc_path[0] ? p->libc_path : NULL);
	json_str(j, "libc_version",
		 p->libc_version[0] ? p->libc_version : NULL);
	json_bool(j, "static", p->is_static);
	json_str(j, "finding", proc_tz_finding(p, &st));
	json_str(j, "runtime", runtime_name(p->runtime));
	json_str(j, "runtime_finding",
		 proc_runtime_finding(p, &st, buf, sizeof(buf)));
	json_obj_end(j);
}

static void print_json(FILE *f, const struct checks *c,
		       const struct proc_facts *p)
{
	struct json j;

	json_init(&j, f, true);
	json_obj_begin(&j, NULL);
	json_bool(&j, "can_trace", !checks_failed(c));
	json_arr_begin(&j, "checks");
	for (size_t i = 0; i < c->n; i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "check", c->v[i].name);
		json_str(&j, "status", check_word(c->v[i].status));
		json_str(&j, "detail", c->v[i].detail);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	if (p)
		json_process(&j, p);
	json_obj_end(&j);
	json_finish(&j);
}

/* The container of process PID, when a root-made cgroup names one. */
static bool container_of_pid(const char *pid, char id[CONTAINER_ID_LEN + 1])
{
	char path[sizeof("/proc//cgroup") + 256], *buf, *cg;
	size_t len;
	bool found;

	snprintf(path, sizeof(path), "/proc/%s/cgroup", pid);
	buf = read_file(path, 1 << 16, &len);
	cg = buf ? cgroup_v2_path(buf, len) : NULL;
	found = cg && container_of_cgroup(cg, id) == CONTAINER_VERIFIED;
	free(buf);
	free(cg);
	return found;
}

/*
 * The running containers' names as a trace would find them: a count, not
 * a failure (tracing works without names).
 */
static void check_container_names(struct checks *c)
{
	const char *root = getenv("CLOCKTRACE_HOST_ROOT");
	char id[CONTAINER_ID_LEN + 1];
	struct container_names_stats s;
	struct dirent *e;
	DIR *d = opendir("/proc");

	while (d && (e = readdir(d)))
		if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
		    container_of_pid(e->d_name, id))
			container_names_of(id);
	if (d)
		closedir(d);
	container_names_stats(&s);
	check_add(c, "container names", CHECK_OK, "%zu containers running, "
		  "%zu without a name in their runtime's files under %s%s",
		  s.looked_up + s.not_kept, s.unnamed + s.not_kept,
		  root && root[0] ? root : "/", s.unnamed + s.not_kept ?
		  " (README: Container and pod names; CLOCKTRACE_HOST_ROOT)" :
		  "");
}

int cmd_doctor(int argc, char **argv)
{
	struct kernel_features kf;
	struct proc_facts p;
	struct checks c = {};
	char cs[64] = "";
	struct opts o;
	pid_t pid;
	int err;

	err = cli_parse(MODE_DOCTOR, argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	pid = o.npids ? o.pids[0] : 0;
	free(o.pids);
	if (pid && proc_facts_read(pid, &p)) {
		ct_warn("doctor: no process %d", pid);
		return EXIT_TOOL_FAILURE;
	}
	features_probe(&kf, true);
	check_kernel(&c, &kf);
	check_btf(&c, &kf);
	check_permission(&c, &kf);
	check_kept_caps(&c);
	check_bpf(&c, &kf);
	check_variant(&c, &kf);
	check_attach(&c, &kf);
	check_clocksource(&c, cs, sizeof(cs));
	check_vdso(&c, cs);
	check_libc(&c);
	check_container_names(&c);
	if (pid)
		doctor_process_checks(&c, &p);
	if (o.format == FORMAT_JSON)
		print_json(stdout, &c, pid ? &p : NULL);
	else
		print_text(stdout, &c);
	err = checks_failed(&c) ? 1 : 0;
	if (pid)
		proc_facts_free(&p);
	free(c.v);
	return err;
}
