// SPDX-License-Identifier: GPL-2.0
/*
 * A small copy of the kernel's BTF for libbpf's CO-RE relocations.
 *
 * libbpf 1.1 finds the kernel type behind each CO-RE root type by scanning
 * all of the kernel's BTF (126,700 types here) once per type name: ten
 * scans, a quarter of the CPU time of `clocktrace run /bin/true`.  Field
 * relocations only look at a root type and at what it embeds, so one pass
 * over the kernel's BTF collects the types our object names, and what they
 * embed, into a BTF of a few hundred types; pointers become void *, since
 * an access never goes through one.  libbpf takes it as btf_custom_path.
 * Its type ids are not the kernel's, which is fine for field offsets, sizes
 * and existence, the only relocations our programs use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "core_btf.h"

struct closure {
	const struct btf *src;
	__u32 *new_id;		/* by kernel type id; 0: not taken */
	__u32 *order;		/* kernel ids in the order they are emitted */
	__u32 n, cap;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool is_root_kind(const struct btf_type *t)
{
	return btf_is_composite(t) || btf_is_any_enum(t);
}

/* New ids start at 2: id 1 is the void * every pointer becomes. */
static int take(struct closure *c, __u32 id)
{
	const struct btf_type *t;

	if (!id || c->new_id[id])
		return 0;
	t = btf__type_by_id(c->src, id);
	if (btf_is_ptr(t)) {
		c->new_id[id] = 1;
		return 0;
	}
	if (c->n == c->cap) {
		__u32 cap = c->cap ? 2 * c->cap : 256;
		__u32 *o = realloc(c->order, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		c->order = o;
		c->cap = cap;
	}
	c->order[c->n++] = id;
	c->new_id[id] = c->n + 1;
	return 0;
}

static int take_roots(struct closure *c, const char *const *names, size_t nr)
{
	__u32 id, cnt = btf__type_cnt(c->src);
	int err = 0;

	for (id = 1; id < cnt && !err; id++) {
		const struct btf_type *t = btf__type_by_id(c->src, id);
		const char *name;

		if (!is_root_kind(t) || !t->name_off)
			continue;
		name = btf__name_by_offset(c->src, t->name_off);
		if (bsearch(&name, names, nr, sizeof(*names), by_name))
			err = take(c, id);
	}
	return err;
}

/* What a taken type is made of, except through pointers. */
static int take_parts(struct closure *c, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(c->src, id);
	int i, err = 0;

	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < btf_vlen(t) && !err; i++)
			err = take(c, btf_members(t)[i].type);
		return err;
	case BTF_KIND_ARRAY:
		err = take(c, btf_array(t)->type);
		return err ? err : take(c, btf_array(t)->index_type);
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return take(c, t->type);
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		return 0;
	default:	/* functions, variables: never embedded */
		return -EINVAL;
	}
}

static int emit_members(struct btf *dst, const struct closure *c,
			const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	int i, err = 0;

	for (i = 0; i < btf_vlen(t) && !err; i++)
		err = btf__add_field(dst, btf__name_by_offset(c->src, m[i].name_off),
				     c->new_id[m[i].type],
				     btf_member_bit_offset(t, i),
				     btf_member_bitfield_size(t, i));
	return err;
}

static int emit_enum(struct btf *dst, const struct closure *c,
		     const struct btf_type *t, const char *name)
{
	int i, err;

	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		err = btf__add_enum(dst, name, t->size);
		for (i = 0; i < btf_vlen(t) && err >= 0; i++)
			err = btf__add_enum_value(dst,
				btf__name_by_offset(c->src, e[i].name_off),
				e[i].val);
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		err = btf__add_enum64(dst, name, t->size, btf_kflag(t));
		for (i = 0; i < btf_vlen(t) && err >= 0; i++)
			err = btf__add_enum64_value(dst,
				btf__name_by_offset(c->src, e[i].name_off),
				btf_enum64_value(&e[i]));
	}
	return err < 0 ? err : 0;
}

static int emit(struct btf *dst, const struct closure *c, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(c->src, id);
	const char *name = btf__name_by_offset(c->src, t->name_off);
	int err;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if (btf_int_offset(t) || btf_int_bits(t) != 8 * t->size)
			return -EINVAL;
		err = btf__add_int(dst, name, t->size, btf_int_encoding(t));
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		err = btf_is_struct(t) ? btf__add_struct(dst, name, t->size) :
					 btf__add_union(dst, name, t->size);
		if (err >= 0)
			err = emit_members(dst, c, t);
		break;
	case BTF_KIND_ARRAY:
		err = btf__add_array(dst, c->new_id[btf_array(t)->index_type],
				     c->new_id[btf_array(t)->type],
				     btf_array(t)->nelems);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		err = emit_enum(dst, c, t, name);
		break;
	case BTF_KIND_FWD:
		err = btf__add_fwd(dst, name, btf_kflag(t) ? BTF_FWD_UNION :
							     BTF_FWD_STRUCT);
		break;
	case BTF_KIND_FLOAT:
		err = btf__add_float(dst, name, t->size);
		break;
	case BTF_KIND_TYPEDEF:
		err = btf__add_typedef(dst, name, c->new_id[t->type]);
		break;
	case BTF_KIND_VOLATILE:
		err = btf__add_volatile(dst, c->new_id[t->type]);
		break;
	case BTF_KIND_CONST:
		err = btf__add_const(dst, c->new_id[t->type]);
		break;
	case BTF_KIND_RESTRICT:
		err = btf__add_restrict(dst, c->new_id[t->type]);
		break;
	case BTF_KIND_TYPE_TAG:
		err = btf__add_type_tag(dst, name, c->new_id[t->type]);
		break;
	default:
		return -EINVAL;
	}
	return err < 0 ? err : 0;
}

static struct btf *build(struct closure *c, const char *const *roots,
			 size_t nr)
{
	struct btf *dst;
	__u32 i;
	int err;

	err = take_roots(c, roots, nr);
	/* c->n grows while the parts of earlier types are taken. */
	for (i = 0; i < c->n && !err; i++)
		err = take_parts(c, c->order[i]);
	if (err || !c->n)
		return NULL;
	dst = btf__new_empty();
	if (!dst)
		return NULL;
	err = btf__add_ptr(dst, 0);
	for (i = 0; i < c->n && err >= 0; i++)
		err = emit(dst, c, c->order[i]);
	if (err < 0) {
		btf__free(dst);
		return NULL;
	}
	return dst;
}

struct btf *core_btf_build(const struct btf *vmlinux, const char *const *roots,
			   size_t nr_roots)
{
	struct closure c = { .src = vmlinux };
	struct btf *btf;

	c.new_id = calloc(btf__type_cnt(vmlinux), sizeof(*c.new_id));
	if (!c.new_id)
		return NULL;
	btf = build(&c, roots, nr_roots);
	free(c.new_id);
	free(c.order);
	return btf;
}

int core_btf_memfd(const struct btf *btf, char *path, size_t len)
{
	const void *data;
	__u32 size;
	int fd;

	data = btf__raw_data(btf, &size);
	if (!data)
		return -1;
	fd = memfd_create("clocktrace-core-btf", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}
