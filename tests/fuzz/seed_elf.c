// SPDX-License-Identifier: GPL-2.0
/* The seed of fuzz_symbolize: an inlined call inside a nested block. */
static inline int twice(int x) { return 2 * x; }
int f(int x) { { int y = x + 1; return twice(y); } }
int g(int x) { return f(x) + 1; }
