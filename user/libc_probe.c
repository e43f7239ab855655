/* TEMP */
#include "libc_probe.h"
void libc_probe_init(struct libc_probe *lp, bool verbose) { (void)lp; (void)verbose; }
void libc_probe_process(struct libc_probe *lp, struct tracer *t, struct proc_model *p) { (void)lp; (void)t; (void)p; }
void libc_probe_finish(struct libc_probe *lp, struct model *m) { (void)lp; (void)m; }
void libc_probe_close(struct libc_probe *lp) { (void)lp; }
