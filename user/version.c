#include "version.h"
int print_version(FILE *f) { fprintf(f, "clocktrace " CLOCKTRACE_VERSION "\n"); return 0; } /* TEMP */
