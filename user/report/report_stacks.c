// SPDX-License-Identifier: GPL-2.0
/*
 * --stacks in the views: the top stacks of a finding in the text report
 * (innermost first: "stat < __tzfile_read < tzset < localtime < do_work
 * (tzloop.c:165) < main"), and JSON "stacks".  Frames are the traced
 * program's names: escaped on the way out (escape.h, json.h).
 */
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "json.h"
#include "report.h"
#include "stack.h"
#include "util.h"

static uint64_t class_weight(const struct stack_row *r, uint32_t cls)
{
	return cls == STACK_CLASS_TZ ? r->tz_accesses : r->clock_syscalls;
}

/* "stat < fstatat64 < tzset < ... < main", the event first. */
static void print_row(FILE *f, const struct stack_row *r)
{
	fputs(stack_row_event(r), f);
	if (r->not_unwound)
		fputs(" < [not unwound]", f);
	for (size_t i = 0; i < r->nframes; i++) {
		char *label = stack_frame_label(&r->frames[i], true);

		fputs(" < ", f);
		escape_print(f, label, ESCAPE_TEXT);
		free(label);
	}
}

void report_stacks_text(FILE *f, const struct model *m, uint32_t cls,
			size_t top)
{
	const struct stack_table *t = m->stacks;
	uint64_t total = 0;
	size_t n, shown = 0, *order;

	if (!t)
		return;
	order = stack_table_order(t, &n);
	for (size_t i = 0; i < n; i++)
		total += class_weight(&t->rows[order[i]], cls);
	for (size_t i = 0; i < n && shown < top && total; i++) {
		const struct stack_row *r = &t->rows[order[i]];
		uint64_t w = class_weight(r, cls);

		if (!w)
			continue;
		if (!shown++)
			fprintf(f, "    stacks (%s):\n", cls == STACK_CLASS_TZ ?
				"tz accesses" : "clock syscalls");
		fprintf(f, "      %3.0f%% %llu%s in %zu process%s: ",
			100.0 * w / total, (unsigned long long)w,
			r->sampled ? " (sampled)" : "", r->processes,
			r->processes == 1 ? "" : "es");
		print_row(f, r);
		fputc('\n', f);
	}
	free(order);
}

static void json_frame(struct json *j, const struct stack_frame *fr)
{
	json_obj_begin(j, NULL);
	if (fr->function)
		json_str(j, "function", fr->function);
	else
		json_null(j, "function");
	if (fr->file) {
		json_str(j, "file", fr->file);
		json_u64(j, "line", fr->line);
	} else {
		json_null(j, "file");
		json_null(j, "line");
	}
	if (fr->module)
		json_str(j, "module", fr->module);
	else
		json_null(j, "module");
	if (fr->build_id)
		json_str(j, "build_id", fr->build_id);
	else
		json_null(j, "build_id");
	json_u64(j, "offset", fr->offset);
	json_bool(j, "inlined", fr->inlined);
	/* --lang: a script's frame, "python" or "ruby"; null: a native one. */
	if (fr->lang)
		json_str(j, "lang", lang_name(fr->lang));
	else
		json_null(j, "lang");
	json_obj_end(j);
}

void report_stacks_json(struct json *j, const struct model *m)
{
	const struct stack_table *t = m->stacks;
	size_t n, *order;

	if (!t)
		return;
	order = stack_table_order(t, &n);
	json_arr_begin(j, "stacks");
	for (size_t i = 0; i < n; i++) {
		const struct stack_row *r = &t->rows[order[i]];

		json_obj_begin(j, NULL);
		if (r->kind < KIND_MAX)
			json_str(j, "event", kind_name(r->kind));
		else
			json_null(j, "event");
		json_str(j, "comm", r->comm);
		json_arr_begin(j, "frames");
		for (size_t k = 0; k < r->nframes; k++)
			json_frame(j, &r->frames[k]);
		json_arr_end(j);
		json_u64(j, "tz_accesses", r->tz_accesses);
		json_u64(j, "clock_syscalls", r->clock_syscalls);
		json_u64(j, "processes", r->processes);
		json_bool(j, "sampled", r->sampled);
		json_obj_end(j);
	}
	json_arr_end(j);
	free(order);
}
