// SPDX-License-Identifier: GPL-2.0
/* Source lines of call sites: see srcline.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elf_bounds.h"
#include "srcline.h"
#include "util.h"

#define DEBUG_DIR	"/usr/lib/debug"
#define DEBUG_ROOT	DEBUG_DIR "/.build-id"
/* Inlined calls named per site; deeper chains end with ", at ...". */
#define INLINE_MAX	4

struct srcline {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;	/* module address = link-time address + bias */
};

/*
 * libdw inflates compressed sections whole when it opens a file: its
 * section headers are read first, with libelf, against elf_bounds.h.
 */
static bool dwarf_affordable(int fd)
{
	Elf *elf;
	bool ok;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && elf_kind(elf) == ELF_K_ELF && elf_dwarf_within_caps(elf, fd);
	elf_end(elf);
	return ok;
}

/*
 * Only the build-id directory, which root owns: a debuglink is a name the
 * traced program's file chose, and its directory may be the program's.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	const unsigned char *id;
	GElf_Addr id_vaddr;
	char path[sizeof(DEBUG_ROOT) + 2 * 64 + 16];
	int len, n, fd;

	(void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink, (void)crc;
	len = dwfl_module_build_id(mod, &id, &id_vaddr);
	if (len < 2 || len > 64)
		return -1;
	n = snprintf(path, sizeof(path), DEBUG_ROOT "/%02x/", id[0]);
	for (int i = 1; i < len; i++)
		n += snprintf(path + n, sizeof(path) - n, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	fd = open_regular(path);
	if (fd >= 0 && !dwarf_affordable(fd)) {
		close(fd);
		return -1;
	}
	if (fd >= 0)
		*debuginfo_file_name = xstrdup(path);
	return fd;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/*
 * DWARF that names other files, which libdw would open by itself, with a
 * plain blocking open(2) of whatever path the file chose: a supplementary
 * file (.gnu_debugaltlink, dwz) outside root's debug tree, or split units
 * (.dwo).  A FIFO or a device there would hang us or be opened as root.
 */
static bool names_other_files(Dwarf *dw)
{
	const char *alt;
	const void *id;
	Dwarf_CU *cu = NULL;
	uint8_t unit_type;
	Dwarf_Die cudie;
	Dwarf_Attribute a;

	if (dwelf_dwarf_gnu_debugaltlink(dw, &alt, &id) > 0 &&
	    (strncmp(alt, DEBUG_DIR "/", sizeof(DEBUG_DIR)) ||
	     strstr(alt, "/..")))
		return true;
	while (!dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL)) {
		if (unit_type == DW_UT_skeleton ||
		    dwarf_attr(&cudie, DW_AT_GNU_dwo_name, &a) ||
		    dwarf_attr(&cudie, DW_AT_dwo_name, &a))
			return true;
	}
	return false;
}

struct srcline *srcline_open(int fd, const char *name)
{
	struct srcline *s = xcalloc(1, sizeof(*s));
	int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	Dwarf *dw;

	if (own < 0 || !dwarf_affordable(own))
		goto fail;
	s->dwfl = dwfl_begin(&callbacks);
	if (!s->dwfl)
		goto fail;
	/* libdwfl owns (and closes) the descriptor from here. */
	s->mod = dwfl_report_offline(s->dwfl, name, name, own);
	own = -1;
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (!s->mod)
		goto fail;
	dw = dwfl_module_getdwarf(s->mod, &s->bias);
	if (!dw || names_other_files(dw))
		goto fail;
	return s;
fail:
	if (own >= 0)
		close(own);
	srcline_close(s);
	return NULL;
}

void srcline_close(struct srcline *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	free(s);
}

/* The name of entry idx of a CU's file table, or "?". */
static const char *cu_file(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	const char *name;
	size_t n;

	if (dwarf_getsrcfiles(cu, &files, &n) || idx >= n)
		return "?";
	name = dwarf_filesrc(files, idx, NULL, NULL);
	return name ? name : "?";
}

/* "DIR/FILE": a relative name is relative to the compilation. */
static char *in_dir(const char *dir, const char *file)
{
	if (file[0] == '/' || !dir || !dir[0])
		return xstrdup(file);
	return xasprintf("%s/%s", dir, file);
}

static const char *comp_dir(Dwarf_Die *cu)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
}

/* DIEs without code of their own whose children may have some (C++). */
static bool is_container(Dwarf_Die *die)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return true;
	default:
		return false;
	}
}

/*
 * The DIEs holding addr from the unit down, path[0] the unit and
 * path[n - 1] the innermost scope; n is returned.  Not dwarf_getscopes():
 * it recurses once per level of nesting, and a file with 30,000 nested
 * blocks overflows the stack.  This walk keeps its own stack, at most
 * DWARF_SCOPE_DEPTH_MAX deep, and stops after DWARF_SCOPE_DIES_MAX DIEs:
 * what lies deeper is not named.  at[d] is the child of path[d] being
 * looked at; containers are entered and left when they hold nothing.
 */
static int pc_path(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *path)
{
	Dwarf_Die at[DWARF_SCOPE_DEPTH_MAX];
	unsigned long dies = 0;
	int d = 0;

	path[0] = *cu;
	if (dwarf_child(cu, &at[0]))
		return 1;
	while (++dies <= DWARF_SCOPE_DIES_MAX) {
		bool code = dwarf_haspc(&at[d], addr) > 0;

		if ((code || is_container(&at[d])) &&
		    d + 1 < DWARF_SCOPE_DEPTH_MAX) {
			path[d + 1] = at[d];
			if (!dwarf_child(&at[d], &at[d + 1])) {
				d++;
				continue;
			}
			if (code)
				return d + 2;
		} else if (code) {
			return d + 1;	/* deeper than the cap */
		}
		/* The next sibling, leaving the containers that ran out. */
		while (dwarf_siblingof(&at[d], &at[d]) != 0) {
			if (!d || !is_container(&path[d]))
				return d + 1;
			d--;
		}
	}
	return d + 1;
}

/*
 * What the innermost scope of addr is inlined into, innermost first: the
 * DW_TAG_inlined_subroutine DIEs around it.  malloc'd, n returned.
 */
static int nested_scopes(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **out)
{
	Dwarf_Die *path = xcalloc(DWARF_SCOPE_DEPTH_MAX, sizeof(*path));
	int n = pc_path(cu, addr, path);

	*out = xcalloc(n, sizeof(**out));
	for (int i = 0; i < n; i++)
		(*out)[i] = path[n - 1 - i];
	free(path);
	return n;
}

/* Where an inlined call was made: "FILE:LINE", or "line N" in main_file. */
static char *call_site_words(Dwarf_Die *scope, Dwarf_Die *cu,
			     const char *main_file)
{
	Dwarf_Attribute a;
	Dwarf_Word file = 0, line = 0;
	char *path, *out;

	dwarf_formudata(dwarf_attr(scope, DW_AT_call_file, &a), &file);
	dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &a), &line);
	path = in_dir(comp_dir(cu), cu_file(cu, file));
	if (strcmp(path, main_file))
		out = xasprintf("%s:%llu", path, (unsigned long long)line);
	else
		out = xasprintf("line %llu", (unsigned long long)line);
	free(path);
	return out;
}

/* Appends " (inlined at line 250, at other.c:30)", innermost first. */
static char *add_inlined(char *out, const char *main_file, Dwarf_Die *cu,
			 Dwarf_Addr addr)
{
	Dwarf_Die *scopes;
	int n = nested_scopes(cu, addr, &scopes), shown = 0;
	char *more;

	for (int i = 0; i < n; i++) {
		char *at;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		at = shown < INLINE_MAX ?
		     call_site_words(&scopes[i], cu, main_file) : xstrdup("...");
		more = xasprintf("%s%s%s", out, shown ? ", at " : " (inlined at ",
				 at);
		free(at);
		free(out);
		out = more;
		if (++shown > INLINE_MAX)
			break;
	}
	free(scopes);
	if (!shown)
		return out;
	more = xasprintf("%s)", out);
	free(out);
	return more;
}

char *srcline_lookup(struct srcline *s, uint64_t vaddr)
{
	Dwarf_Addr addr = vaddr + s->bias, cu_bias;
	Dwfl_Line *line = dwfl_module_getsrc(s->mod, addr);
	Dwarf_Die *cu;
	const char *file;
	char *where, *path;
	int lineno = 0;

	if (!line)
		return NULL;
	file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!file || lineno <= 0)
		return NULL;
	path = in_dir(dwfl_line_comp_dir(line), file);
	where = xasprintf("%s:%d", path, lineno);
	cu = dwfl_module_addrdie(s->mod, addr, &cu_bias);
	if (cu)
		where = add_inlined(where, path, cu, addr - cu_bias);
	free(path);
	return where;
}

/* The name of a subprogram or inlined call, from its abstract origin. */
static char *scope_name(Dwarf_Die *scope)
{
	const char *name = dwarf_diename(scope);

	return name ? xstrdup(name) : NULL;
}

/*
 * The call site an inlined scope names becomes its caller's line: the
 * caller, one scope out, called it from there.
 */
static void call_site(Dwarf_Die *scope, Dwarf_Die *cu,
		      struct srcline_frame *caller)
{
	Dwarf_Attribute a;
	Dwarf_Word file = 0, line = 0;

	if (dwarf_formudata(dwarf_attr(scope, DW_AT_call_file, &a), &file) ||
	    dwarf_formudata(dwarf_attr(scope, DW_AT_call_line, &a), &line))
		return;
	caller->file = in_dir(comp_dir(cu), cu_file(cu, file));
	caller->line = line <= UINT_MAX ? (unsigned int)line : 0;
}

/*
 * out[0] has the line table's line; each DW_TAG_inlined_subroutine around
 * addr, innermost first, names the frame it stands for and gives the next
 * frame out its call site, up to the subprogram (addr2line -i).
 */
static int inline_chain(Dwarf_Die *cu, Dwarf_Addr addr,
			struct srcline_frame *out, int max)
{
	Dwarf_Die *scopes;
	int n = nested_scopes(cu, addr, &scopes), k = 0;

	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_subprogram)
			continue;
		out[k].function = scope_name(&scopes[i]);
		if (tag == DW_TAG_subprogram) {
			k++;
			break;
		}
		out[k].inlined = true;
		if (++k < max)
			call_site(&scopes[i], cu, &out[k]);
	}
	free(scopes);
	/* A chain cut short (scopes past the walk's caps): its caller unnamed. */
	if (k && k < max && out[k].file)
		k++;
	return k ? k : 1;
}

int srcline_frames(struct srcline *s, uint64_t vaddr,
		   struct srcline_frame *out, int max)
{
	Dwarf_Addr addr = vaddr + s->bias, cu_bias;
	Dwfl_Line *line = dwfl_module_getsrc(s->mod, addr);
	Dwarf_Die *cu;
	const char *file;
	int lineno = 0;

	memset(out, 0, max * sizeof(*out));
	if (!line || max < 1)
		return 0;
	file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!file || lineno <= 0)
		return 0;
	out[0].file = in_dir(dwfl_line_comp_dir(line), file);
	out[0].line = (unsigned int)lineno;
	cu = dwfl_module_addrdie(s->mod, addr, &cu_bias);
	return cu ? inline_chain(cu, addr - cu_bias, out, max) : 1;
}

void srcline_frames_free(struct srcline_frame *f, int n)
{
	for (int i = 0; i < n; i++) {
		free(f[i].function);
		free(f[i].file);
	}
	memset(f, 0, n * sizeof(*f));
}

char *srcline_function(struct srcline *s, uint64_t vaddr)
{
	const char *name = dwfl_module_addrname(s->mod, vaddr + s->bias);

	return name ? xstrdup(name) : NULL;
}
