/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --vdso: the kernel's vDSO as mapped into clocktrace itself (the same
 * image as in every native process of this kernel): its size, its
 * functions' places for symbolizing sample offsets, and what each costs
 * per call here.
 */
#ifndef CLOCKTRACE_VDSO_IMAGE_H
#define CLOCKTRACE_VDSO_IMAGE_H

#include <stdint.h>

#include "vdso_est.h"

#define VDSO_RANGES_MAX	16
/* Short trials (a slice rarely interrupted), at start and at the end. */
#define VDSO_COST_TRIALS	40
#define VDSO_COST_ROUNDS	2

struct vdso_range {
	uint64_t start;			/* offset in the image */
	uint64_t end;
	enum vdso_fn fn;
};

struct vdso_image {
	uintptr_t base;			/* our own [vdso] */
	uint64_t size;
	struct vdso_range ranges[VDSO_RANGES_MAX];
	unsigned int nranges;
	uint64_t fn_off[VDSO_FN_MAX];	/* an entry of each, 0: none */
	struct vdso_cost cost[VDSO_FN_MAX];	/* ns: 0 when not measured */
	/* ns per call of each function's trials, and of the empty loop's beside them. */
	double trials[VDSO_FN_MAX][VDSO_COST_TRIALS * VDSO_COST_ROUNDS];
	double empty[VDSO_FN_MAX][VDSO_COST_TRIALS * VDSO_COST_ROUNDS];
	unsigned int ntrials;		/* of each timed function */
};

/* 0, or -1 after one line on stderr. */
int vdso_image_open(struct vdso_image *img);
enum vdso_fn vdso_image_fn(const struct vdso_image *img, uint64_t off);
/*
 * Another round of trials of clock_gettime, gettimeofday and time (about
 * 50 ms), and their costs from every round so far; at most
 * VDSO_COST_ROUNDS rounds count.
 */
void vdso_image_measure(struct vdso_image *img);

#endif /* CLOCKTRACE_VDSO_IMAGE_H */
