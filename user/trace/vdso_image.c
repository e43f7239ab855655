// SPDX-License-Identifier: GPL-2.0
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/time.h>
#include <time.h>

#include "util.h"
#include "vdso_image.h"

/* Its [vdso] line in /proc/self/maps: the whole mapped text. */
static uint64_t mapped_size(uintptr_t base)
{
	FILE *f = fopen("/proc/self/maps", "re");
	unsigned long lo, hi;
	char line[256];
	uint64_t size = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == base)
			size = hi - lo;
	fclose(f);
	return size;
}

/* x86_64 names them __vdso_X, arm64 __kernel_X. */
static int fn_of_name(const char *name)
{
	static const char *const prefixes[] = { "__vdso_", "__kernel_" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t n = strlen(prefixes[i]);

		if (strncmp(name, prefixes[i], n))
			continue;
		for (int f = 0; f < VDSO_FN_OTHER; f++)
			if (!strcmp(name + n, vdso_fn_name(f)))
				return f;
	}
	return -1;
}

static void add_symbol(struct vdso_image *img, const GElf_Sym *sym,
		       const char *name)
{
	int f = fn_of_name(name);

	if (f < 0 || GELF_ST_TYPE(sym->st_info) != STT_FUNC ||
	    img->nranges == VDSO_RANGES_MAX || sym->st_value >= img->size)
		return;
	img->ranges[img->nranges++] = (struct vdso_range){
		sym->st_value, sym->st_value + sym->st_size, f,
	};
	img->fn_off[f] = sym->st_value;
}

static int read_symbols(struct vdso_image *img, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name)
				add_symbol(img, &sym, name);
		}
		return 0;
	}
	return -1;
}

int vdso_image_open(struct vdso_image *img)
{
	Elf *elf;
	int err;

	memset(img, 0, sizeof(*img));
	img->base = getauxval(AT_SYSINFO_EHDR);
	img->size = img->base ? mapped_size(img->base) : 0;
	if (!img->size) {
		ct_warn("--vdso: this process has no vDSO to read");
		return -1;
	}
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)img->base, img->size);
	err = elf ? read_symbols(img, elf) : -1;
	elf_end(elf);
	if (err)
		ct_warn("--vdso: cannot read the vDSO's symbols: %s",
			elf_errmsg(-1));
	return err;
}

enum vdso_fn vdso_image_fn(const struct vdso_image *img, uint64_t off)
{
	for (unsigned int i = 0; i < img->nranges; i++)
		if (off >= img->ranges[i].start && off < img->ranges[i].end)
			return img->ranges[i].fn;
	return VDSO_FN_OTHER;
}

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*time_fn)(time_t *);

#define COST_CALLS	20000

/* The same calls into a function that does nothing: the loop's own cost. */
static __attribute__((noinline)) int empty_fn(clockid_t id, struct timespec *ts)
{
	__asm__ volatile("" : : "r"(id), "r"(ts) : "memory");
	return 0;
}

/*
 * One trial of COST_CALLS calls of f through its vDSO entry (VDSO_FN_MAX:
 * of empty_fn): ns per call.
 */
static double trial_ns(const struct vdso_image *img, enum vdso_fn f)
{
	void *entry = f == VDSO_FN_MAX ? (void *)empty_fn :
		      (void *)(img->base + img->fn_off[f]);
	uint64_t t0 = now_ns();
	struct timespec ts;
	struct timeval tv;

	for (int i = 0; i < COST_CALLS; i++) {
		if (f == VDSO_FN_CLOCK_GETTIME || f == VDSO_FN_MAX)
			((clock_gettime_fn)entry)(CLOCK_MONOTONIC, &ts);
		else if (f == VDSO_FN_GETTIMEOFDAY)
			((gettimeofday_fn)entry)(&tv, NULL);
		else
			((time_fn)entry)(NULL);
		__asm__ volatile("" ::: "memory");
	}
	return (double)(now_ns() - t0) / COST_CALLS;
}

void vdso_image_measure(struct vdso_image *img)
{
	static const enum vdso_fn timed[] = {
		VDSO_FN_CLOCK_GETTIME, VDSO_FN_GETTIMEOFDAY, VDSO_FN_TIME,
	};
	unsigned int n = img->ntrials;

	if (n == ARRAY_SIZE(img->trials[0]))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(timed); i++) {
		enum vdso_fn f = timed[i];
		double sf[ARRAY_SIZE(img->trials[0])];
		double se[ARRAY_SIZE(img->trials[0])];

		if (!img->fn_off[f])
			continue;
		/*
		 * Samples see the time inside the vDSO only: the loop and the
		 * call around it are not the function's (vdso_cost_of()).
		 */
		for (int t = 0; t < VDSO_COST_TRIALS; t++) {
			img->trials[f][n + t] = trial_ns(img, f);
			img->empty[f][n + t] = trial_ns(img, VDSO_FN_MAX);
		}
		memcpy(sf, img->trials[f], sizeof(sf));
		memcpy(se, img->empty[f], sizeof(se));
		img->cost[f] = vdso_cost_of(sf, se, n + VDSO_COST_TRIALS);
	}
	img->ntrials = n + VDSO_COST_TRIALS;
}
