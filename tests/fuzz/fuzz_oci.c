// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: whatever bytes a runtime's JSON file holds (its strings come
 * from pod specs), the readers of container_names.c stay inside the
 * buffer, bounded in depth, and give back NUL-ended names no longer than
 * CONTAINER_NAME_MAX and a pod UID that is one or "".  The buffer is a
 * copy of exactly the input's size, so ASan sees any read past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "container_names.h"
#include "oci_json.h"

static void check(const struct container_names *n)
{
	if (strnlen(n->name, sizeof(n->name)) > CONTAINER_NAME_MAX ||
	    strnlen(n->pod, sizeof(n->pod)) > CONTAINER_NAME_MAX ||
	    strnlen(n->namespace, sizeof(n->namespace)) > CONTAINER_NAME_MAX)
		abort();
	if (n->pod_uid[0] && strlen(n->pod_uid) != POD_UID_LEN)
		abort();
}

/* Every element of an array at the top, each as a string. */
static void walk(const char *buf, size_t len)
{
	struct ojson j;
	char s[16];

	ojson_init(&j, buf, len);
	if (!ojson_first(&j))
		return;
	do {
		if (ojson_string(&j, s, sizeof(s)) == OJSON_OK &&
		    strlen(s) >= sizeof(s))
			abort();
	} while (ojson_next(&j));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct container_names n = {};

	memcpy(buf, data, size);
	container_names_from_bundle(buf, size, &n);
	check(&n);
	memset(&n, 0, sizeof(n));
	container_names_from_docker(buf, size, &n);
	check(&n);
	memset(&n, 0, sizeof(n));
	memcpy(n.id, "ct-named", 9);
	container_names_from_storage(buf, size, &n);
	check(&n);
	walk(buf, size);
	free(buf);
	return 0;
}
