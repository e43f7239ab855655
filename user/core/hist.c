// SPDX-License-Identifier: GPL-2.0
#include "hist.h"

#define STARS_MAX 40

uint64_t hist_slot_lo(int slot)
{
	return slot == 0 ? 0 : 1ull << slot;
}

uint64_t hist_slot_hi(int slot)
{
	return (1ull << (slot + 1)) - 1;
}

uint64_t hist_sum(const __u64 *slots, int n)
{
	uint64_t sum = 0;

	for (int i = 0; i < n; i++)
		sum += slots[i];
	return sum;
}

static void print_stars(FILE *f, uint64_t val, uint64_t max)
{
	int stars = max ? (int)(val * STARS_MAX / max) : 0;
	int i;

	if (val && !stars)
		stars = 1;
	for (i = 0; i < STARS_MAX; i++)
		fputc(i < stars ? '*' : ' ', f);
}

void print_log2_hist(FILE *f, const __u64 *slots, int n, const char *unit)
{
	int first = -1, last = -1, width;
	uint64_t max = 0;

	for (int i = 0; i < n; i++) {
		if (!slots[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (slots[i] > max)
			max = slots[i];
	}
	if (first < 0)
		return;
	/* Wider columns only when a bound needs more than 10 digits. */
	width = last >= 33 ? 20 : 10;
	fprintf(f, "%*s%-*s : count    distribution\n", width == 10 ? 5 : 15,
		"", width == 10 ? 19 : 29, unit);
	for (int i = first; i <= last; i++) {
		fprintf(f, "%*llu -> %-*llu : %-8llu |", width,
			(unsigned long long)hist_slot_lo(i), width,
			(unsigned long long)hist_slot_hi(i),
			(unsigned long long)slots[i]);
		print_stars(f, slots[i], max);
		fputs("|\n", f);
	}
}

void latency_add(struct latency *sum, const struct latency *l)
{
	if (!l->count)
		return;
	if (!sum->count || l->min_ns < sum->min_ns)
		sum->min_ns = l->min_ns;
	if (l->max_ns > sum->max_ns)
		sum->max_ns = l->max_ns;
	sum->count += l->count;
	sum->errors += l->errors;
	sum->total_ns += l->total_ns;
	for (int i = 0; i < HIST_SLOTS; i++)
		sum->hist[i] += l->hist[i];
}
