// SPDX-License-Identifier: GPL-2.0
/*
 * Container and pod names from the runtimes' own files.  Where each
 * runtime writes them (sources read in August 2026):
 *
 * containerd: the shim's bundle, <state>/io.containerd.runtime.v2.task/
 *   <namespace>/<id>/config.json, state /run/containerd
 *   (core/runtime/v2/bundle.go NewBundle, defaults/defaults_linux.go);
 *   the CRI plugin annotates it with io.kubernetes.cri.container-name,
 *   .sandbox-name, .sandbox-namespace, .sandbox-uid
 *   (internal/cri/annotations/annotations.go).
 * CRI-O: config.json in the container's directory of containers/storage,
 *   both its run root (/run/containers/storage/overlay-containers/<id>/
 *   userdata) and its graph root (/var/lib/containers/...), server/
 *   container_create.go; the kubelet's labels io.kubernetes.container.name,
 *   io.kubernetes.pod.name, .pod.namespace, .pod.uid become annotations
 *   (internal/factory/container/container.go, vendor/k8s.io/kubelet/pkg/
 *   types/labels.go).
 * podman 4.3 (Debian 12, seen here): config.json in the graph root's
 *   userdata only, without the container's name, which is in
 *   containers/storage's overlay-containers/containers.json ("names");
 *   `podman kube play` copies the pod's annotations into it, but writes
 *   no pod name or namespace of its own.
 * docker: /var/lib/docker/containers/<id>/config.v2.json, "Name" and
 *   Config.Labels (daemon/container/container.go), where cri-dockerd puts
 *   the kubelet's labels.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container_names.h"
#include "oci_json.h"
#include "procfs.h"
#include "util.h"

bool container_names_known(const struct container_names *n)
{
	return n && (n->name[0] || n->pod[0] || n->namespace[0]);
}

/* The string member KEY of the object at AT into OUT (left alone if none). */
static void take(const struct ojson *at, const char *key, char *out,
		 size_t cap, struct container_names *n)
{
	struct ojson j = *at;
	char buf[CONTAINER_NAME_MAX + 1];

	if (out[0] || !ojson_member(&j, key))
		return;
	if (ojson_string(&j, buf, sizeof(buf)) == OJSON_OK && strlen(buf) < cap)
		memcpy(out, buf, strlen(buf) + 1);
	else
		n->refused++;
}

/* 8-4-4-4-12 lowercase hex digits, as the kubelet writes a pod's UID. */
static bool is_uid(const char *s)
{
	if (strlen(s) != POD_UID_LEN)
		return false;
	for (int i = 0; i < POD_UID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return false;
	}
	return true;
}

static void take_uid(const struct ojson *at, const char *key,
		     struct container_names *n)
{
	char uid[CONTAINER_NAME_MAX + 1] = "";

	take(at, key, uid, sizeof(uid), n);
	if (is_uid(uid) && !n->pod_uid[0])
		memcpy(n->pod_uid, uid, sizeof(n->pod_uid));
	else if (uid[0] && !is_uid(uid))
		n->refused++;
}

/* The kubelet's labels, as CRI-O, podman and cri-dockerd copy them. */
static void take_kubelet(const struct ojson *at, struct container_names *n)
{
	take(at, "io.kubernetes.container.name", n->name, sizeof(n->name), n);
	take(at, "io.kubernetes.pod.name", n->pod, sizeof(n->pod), n);
	take(at, "io.kubernetes.pod.namespace", n->namespace,
	     sizeof(n->namespace), n);
	take_uid(at, "io.kubernetes.pod.uid", n);
}

bool container_names_from_bundle(const char *buf, size_t len,
				 struct container_names *n)
{
	struct ojson j;

	ojson_init(&j, buf, len);
	if (!ojson_member(&j, "annotations"))
		return false;
	take(&j, "io.kubernetes.cri.container-name", n->name, sizeof(n->name), n);
	take(&j, "io.kubernetes.cri.sandbox-name", n->pod, sizeof(n->pod), n);
	take(&j, "io.kubernetes.cri.sandbox-namespace", n->namespace,
	     sizeof(n->namespace), n);
	take_uid(&j, "io.kubernetes.cri.sandbox-uid", n);
	take_kubelet(&j, n);
	return true;
}

bool container_names_from_docker(const char *buf, size_t len,
				 struct container_names *n)
{
	struct ojson j, labels;
	char name[CONTAINER_NAME_MAX + 2] = "";

	ojson_init(&j, buf, len);
	labels = j;
	if (ojson_member(&labels, "Config") && ojson_member(&labels, "Labels"))
		take_kubelet(&labels, n);
	if (!ojson_member(&j, "Name"))
		return false;
	/* Docker keeps a leading '/' in "Name" that docker ps never shows. */
	if (!n->name[0] && ojson_string(&j, name, sizeof(name)) == OJSON_OK) {
		const char *s = name[0] == '/' ? name + 1 : name;

		if (strlen(s) <= CONTAINER_NAME_MAX)
			memcpy(n->name, s, strlen(s) + 1);
		else
			n->refused++;
	}
	return true;
}

/* At an element of containers.json: whether its "id" is ID. */
static bool storage_entry_is(const struct ojson *at, const char *id)
{
	struct ojson j = *at;
	char buf[CONTAINER_ID_LEN + 1];

	return ojson_member(&j, "id") &&
	       ojson_string(&j, buf, sizeof(buf)) == OJSON_OK &&
	       !strcmp(buf, id);
}

bool container_names_from_storage(const char *buf, size_t len,
				  struct container_names *n)
{
	struct ojson j;

	ojson_init(&j, buf, len);
	if (!ojson_first(&j))
		return false;
	do {
		struct ojson names = j;

		if (!storage_entry_is(&j, n->id))
			continue;
		if (!ojson_member(&names, "names") || !ojson_first(&names))
			return false;
		if (!n->name[0] &&
		    ojson_string(&names, n->name, sizeof(n->name)) != OJSON_OK)
			n->refused++;
		return true;
	} while (ojson_next(&j));
	return false;
}

static char host_root[256];
static bool root_set;

void container_names_root(const char *root)
{
	root_set = true;
	snprintf(host_root, sizeof(host_root), "%s", root ? root : "");
	/* "/host/" and "/" name the same places as "/host" and "". */
	for (size_t n = strlen(host_root); n && host_root[n - 1] == '/';)
		host_root[--n] = '\0';
}

/* The file at ROOT + PATH parsed by PARSE; false: none, or not parsed. */
static bool read_names(const char *path, size_t max,
		       bool (*parse)(const char *, size_t,
				     struct container_names *),
		       struct container_names *n)
{
	char *full = xasprintf("%s%s", host_root, path), *buf;
	size_t len;
	bool ok;

	buf = read_file(full, max, &len);
	free(full);
	if (!buf)
		return false;
	ok = parse(buf, len, n);
	free(buf);
	return ok;
}

#define CONTAINERD_TASKS	"/run/containerd/io.containerd.runtime.v2.task"

/* containerd's bundle, in whichever of its namespaces ("k8s.io", "moby"). */
static bool from_containerd(struct container_names *n)
{
	char *dir = xasprintf("%s%s", host_root, CONTAINERD_TASKS), *path;
	struct dirent *e;
	DIR *d = opendir(dir);
	bool found = false;
	int seen = 0;

	free(dir);
	if (!d)
		return false;
	/* Namespaces are few; a bound keeps a strange host cheap. */
	while (!found && seen++ < 64 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		path = xasprintf(CONTAINERD_TASKS "/%s/%s/config.json",
				 e->d_name, n->id);
		found = read_names(path, CONTAINER_FILE_MAX,
				   container_names_from_bundle, n);
		free(path);
	}
	closedir(d);
	return found;
}

/* CRI-O's run root, then the graph root CRI-O and podman share. */
static bool from_storage(struct container_names *n)
{
	static const char *const roots[] = {
		"/run/containers/storage", "/var/lib/containers/storage",
	};
	char *path;
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(roots) && !found; i++) {
		path = xasprintf("%s/overlay-containers/%s/userdata/config.json",
				 roots[i], n->id);
		found = read_names(path, CONTAINER_FILE_MAX,
				   container_names_from_bundle, n);
		free(path);
	}
	if (!found)
		return false;
	n->source = "cri-o";
	if (!n->name[0] &&
	    read_names("/var/lib/containers/storage/overlay-containers/"
		       "containers.json", CONTAINER_LIST_MAX,
		       container_names_from_storage, n))
		n->source = "podman";
	return true;
}

static bool from_docker(struct container_names *n)
{
	char *path = xasprintf("/var/lib/docker/containers/%s/config.v2.json",
			       n->id);
	bool found = read_names(path, CONTAINER_FILE_MAX,
				container_names_from_docker, n);

	free(path);
	return found;
}

static void look_up(struct container_names *n)
{
	if (from_containerd(n))
		n->source = "containerd";
	else if (!from_storage(n) && from_docker(n))
		n->source = "docker";
}

static struct container_names *kept[CONTAINER_NAMES_MAX];
static size_t nkept, not_kept;

const struct container_names *container_names_of(const char *id)
{
	struct container_names *n;

	for (size_t i = 0; i < nkept; i++)
		if (!strcmp(kept[i]->id, id))
			return kept[i];
	if (nkept == CONTAINER_NAMES_MAX || strlen(id) != CONTAINER_ID_LEN) {
		not_kept++;
		return NULL;
	}
	if (!root_set)
		container_names_root(getenv("CLOCKTRACE_HOST_ROOT"));
	n = xcalloc(1, sizeof(*n));
	memcpy(n->id, id, CONTAINER_ID_LEN + 1);
	look_up(n);
	kept[nkept++] = n;
	return n;
}

void container_names_stats(struct container_names_stats *s)
{
	s->looked_up = nkept;
	s->unnamed = 0;
	for (size_t i = 0; i < nkept; i++)
		s->unnamed += !container_names_known(kept[i]);
	s->not_kept = not_kept;
}
