// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the container and pod names read from the runtimes' files
 * (user/core/container_names.c, oci_json.c): fixtures under
 * tests/unit/fixtures/host/ laid out as containerd, CRI-O, docker (and
 * cri-dockerd) and podman write them (the sources are cited in
 * container_names.c), and hostile documents.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "container_names.h"
#include "oci_json.h"

#define HOST "tests/unit/fixtures/host"
#define ID(c) c c c c "000000000000000000000000000000000000000000000000000000000000"

static const struct container_names *names_of(const char *id)
{
	const struct container_names *n = container_names_of(id);

	assert_non_null(n);
	return n;
}

static void expect(const struct container_names *n, const char *source,
		   const char *name, const char *pod, const char *ns,
		   const char *uid)
{
	if (source)
		assert_string_equal(n->source, source);
	else
		assert_null(n->source);
	assert_string_equal(n->name, name);
	assert_string_equal(n->pod, pod);
	assert_string_equal(n->namespace, ns);
	assert_string_equal(n->pod_uid, uid);
	assert_int_equal(n->refused, 0);
}

static void test_runtimes_files(void **state)
{
	struct container_names_stats s;

	(void)state;
	container_names_root(HOST "/");
	expect(names_of("aaaa000000000000000000000000000000000000000000000000000000000001"),
	       "containerd", "web", "web-0", "shop",
	       "6f1c9a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b");
	/* Not the "not-this" inside io.kubernetes.cri-o.Labels' string. */
	expect(names_of("bbbb000000000000000000000000000000000000000000000000000000000002"),
	       "cri-o", "api", "api-7d9", "prod",
	       "0c1d2e3f-0000-4000-8000-000000000001");
	expect(names_of("cccc000000000000000000000000000000000000000000000000000000000003"),
	       "docker", "redis", "", "", "");
	/* cri-dockerd: the kubelet's labels, not docker's k8s_... name. */
	expect(names_of("dddd000000000000000000000000000000000000000000000000000000000004"),
	       "docker", "db", "db-0", "data",
	       "0c1d2e3f-0000-4000-8000-000000000002");
	expect(names_of("eeee000000000000000000000000000000000000000000000000000000000005"),
	       "podman", "ct-named", "", "", "");
	/* No file at all: nothing, said as nothing. */
	expect(names_of("9999000000000000000000000000000000000000000000000000000000000009"),
	       NULL, "", "", "", "");
	/* Kept: the same answer, no second lookup. */
	assert_ptr_equal(names_of("aaaa000000000000000000000000000000000000000000000000000000000001"),
			 names_of("aaaa000000000000000000000000000000000000000000000000000000000001"));
	container_names_stats(&s);
	assert_int_equal(s.looked_up, 6);
	assert_int_equal(s.unnamed, 1);
	assert_int_equal(s.not_kept, 0);
	assert_null(container_names_of("not-an-id"));
}

static void parse_bundle(const char *doc, struct container_names *n)
{
	memset(n, 0, sizeof(*n));
	container_names_from_bundle(doc, strlen(doc), n);
}

static void test_hostile_values(void **state)
{
	struct container_names n;
	size_t big = 4096;
	char *doc = malloc(big + 256);

	(void)state;
	/* Quotes, a line break and \u escapes decoded; bytes kept as they are. */
	parse_bundle("{\"annotations\":{\"io.kubernetes.pod.name\":"
		     "\"a\\\"b\\nc\\u00e9\\ud83d\\ude00\"}}", &n);
	assert_string_equal(n.pod, "a\"b\nc\xc3\xa9\xf0\x9f\x98\x80");
	/* 4 KiB: refused whole, never cut. */
	strcpy(doc, "{\"annotations\":{\"io.kubernetes.pod.namespace\":\"");
	memset(doc + strlen(doc), 'x', big);
	strcpy(doc + strlen("{\"annotations\":{\"io.kubernetes.pod.namespace\":\"") + big,
	       "\",\"io.kubernetes.pod.name\":\"ok\"}}");
	parse_bundle(doc, &n);
	assert_string_equal(n.namespace, "");
	assert_string_equal(n.pod, "ok");
	assert_int_equal(n.refused, 1);
	free(doc);
	/*
	 * A malformed UID, a NUL, a number, a lone surrogate: refused (the
	 * last ends the reading: what follows a malformed string is not read).
	 */
	parse_bundle("{\"annotations\":{\"io.kubernetes.pod.uid\":\"../../etc\","
		     "\"io.kubernetes.pod.name\":\"a\\u0000b\","
		     "\"io.kubernetes.container.name\":7,"
		     "\"io.kubernetes.pod.namespace\":\"\\ud800x\"}}", &n);
	assert_false(container_names_known(&n));
	assert_int_equal(n.refused, 4);
	/* The first of two keys of one name. */
	parse_bundle("{\"annotations\":{\"io.kubernetes.pod.name\":\"one\","
		     "\"io.kubernetes.pod.name\":\"two\"}}", &n);
	assert_string_equal(n.pod, "one");
}

static void test_malformed_documents(void **state)
{
	static const char *const bad[] = {
		"", "{", "[", "\"", "{\"annotations\"", "{\"annotations\":",
		"{\"annotations\":{\"io.kubernetes.pod.name\":\"x",
		"{\"annotations\":{\"io.kubernetes.pod.name\"}}",
		"{\"a\":\"\\x\",\"annotations\":{\"io.kubernetes.pod.name\":\"x\"}}",
		"{\"a\":\"\x01\",\"annotations\":{\"io.kubernetes.pod.name\":\"x\"}}",
		"[{\"annotations\":{\"io.kubernetes.pod.name\":\"x\"}}]",
	};
	struct container_names n;
	char deep[4 * OJSON_MAX_DEPTH + 64];
	size_t k = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse_bundle(bad[i], &n);
		assert_false(container_names_known(&n));
	}
	/* Brackets nested past the bound before the annotations: not followed. */
	k += sprintf(deep, "{\"a\":");
	for (int i = 0; i < OJSON_MAX_DEPTH + 2; i++)
		deep[k++] = '[';
	for (int i = 0; i < OJSON_MAX_DEPTH + 2; i++)
		deep[k++] = ']';
	sprintf(deep + k, ",\"annotations\":{\"io.kubernetes.pod.name\":\"x\"}}");
	parse_bundle(deep, &n);
	assert_false(container_names_known(&n));
	/* Within the bound: found. */
	parse_bundle("{\"a\":[[{\"b\":[1,2.5e3,true,null]}]],\"annotations\":"
		     "{\"io.kubernetes.pod.name\":\"x\"}}", &n);
	assert_string_equal(n.pod, "x");
}

static void test_storage_list(void **state)
{
	const char *list = "[{\"id\":\"x\",\"names\":[\"no\"]},"
			   "{\"names\":[\"late\"],\"id\":\"" ID("e") "\"}]";
	struct container_names n = {};

	(void)state;
	strcpy(n.id, ID("e"));
	/* The id need not come first in its entry. */
	assert_true(container_names_from_storage(list, strlen(list), &n));
	assert_string_equal(n.name, "late");
	memset(&n, 0, sizeof(n));
	strcpy(n.id, ID("f"));
	assert_false(container_names_from_storage(list, strlen(list), &n));
	assert_false(container_names_from_storage("[]", 2, &n));
	assert_false(container_names_from_storage("{}", 2, &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtimes_files),
		cmocka_unit_test(test_hostile_values),
		cmocka_unit_test(test_malformed_documents),
		cmocka_unit_test(test_storage_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
