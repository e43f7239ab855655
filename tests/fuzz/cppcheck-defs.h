/* Forced into every file cppcheck checks (make lint): libbpf's macros it
 * cannot expand without the system headers. */
#define LIBBPF_OPTS(TYPE, NAME, ...) \
	struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ }
#define DECLARE_LIBBPF_OPTS LIBBPF_OPTS
