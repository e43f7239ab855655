#!/usr/bin/env bats
# Container, pod and namespace names from the runtimes' own files
# (user/core/container_names.c): a containerd bundle laid under
# CLOCKTRACE_HOST_ROOT with hostile annotations, a podman container by
# name, and a `podman kube play` pod whose annotations are CRI-O's (the
# kubelet's labels: podman 4.3 writes no pod name of its own).  Counts
# exact against the workload's own.

bats_require_minimum_version 1.5.0
load helpers

# runc and the rlimits this machine allows (tests/podman/containers.conf).
export CONTAINERS_CONF="$ROOT/tests/podman/containers.conf"

setup() {
	T=$(mktemp -d)
	NAME="ct-names-$$"
	WLNAME="ctnm$$"
}

teardown() {
	[ -n "${CTPID:-}" ] && kill "$CTPID" 2>/dev/null
	podman kube down "$T/pod.yaml" >/dev/null 2>&1 || true
	podman rm -f -t 0 "$NAME" >/dev/null 2>&1 || true
	podman rmi -f "localhost/$NAME:1" >/dev/null 2>&1 || true
	rm -rf "$T"
}

# An image of forktree and sleep (and their C library), as tests/image.bats makes.
workload_image() {
	local c lib
	cp "$TOOLS/forktree" "$T/$WLNAME"
	c=$(buildah from scratch)
	buildah copy -q "$c" "$T/$WLNAME" "/$WLNAME" >/dev/null
	buildah copy -q "$c" /bin/sleep /sleep >/dev/null
	for lib in $(ldd "$T/$WLNAME" | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
		buildah copy -q "$c" "$(readlink -f "$lib")" "$lib" >/dev/null
	done
	buildah commit -q --rm "$c" "localhost/$NAME:1" >/dev/null
}

# containerd's bundle for container ID, as its CRI plugin annotates it.
containerd_bundle() {
	local dir="$T/host/run/containerd/io.containerd.runtime.v2.task/k8s.io/$1"
	mkdir -p "$dir"
	jq -n --arg id "$1" --arg c "$2" --arg p "$3" --arg ns "$4" --arg uid "$5" '{
		ociVersion: "1.1.0", process: {args: ["/web"], cwd: "/"},
		root: {path: "rootfs"},
		annotations: {"io.kubernetes.cri.container-type": "container",
			"io.kubernetes.cri.container-name": $c,
			"io.kubernetes.cri.sandbox-id": $id,
			"io.kubernetes.cri.sandbox-name": $p,
			"io.kubernetes.cri.sandbox-namespace": $ns,
			"io.kubernetes.cri.sandbox-uid": $uid},
		linux: {namespaces: [{type: "pid"}]}}' >"$dir/config.json"
}

@test "containerd's bundle: JSON, --metrics-by container and pod, the fix name the container, pod and namespace exactly" {
	v2=$(cgroup2_mount)
	[ -n "$v2" ]
	id=$(printf '%064x' "$$")
	uid="6f1c9a2e-3b4d-4e5f-8a9b-$(printf '%012x' "$$")"
	cg="kubepods-ct$$/burstable/pod$uid/$id"
	mkdir -p "$v2/$cg"
	containerd_bundle "$id" web web-0 shop "$uid"
	for out in json openmetrics-container openmetrics-pod; do
		by=${out#openmetrics-}
		[ "$out" = json ] && flags=(--json) || flags=(--format openmetrics --metrics-by "$by")
		env -u TZ CLOCKTRACE_HOST_ROOT="$T/host" "$CT" run "${flags[@]}" -o "$T/$out" -- sh -c \
			"echo \$\$ > '$v2/$cg/cgroup.procs' && exec '$TOOLS/forktree' -D 1 -W 2 -k 20" \
			2>"$T/wl"
		[ "$(workload_sum "$T/wl" tz_stat)" -eq 60 ]
	done
	rmdir "$v2/$cg" "$v2/kubepods-ct$$/burstable/pod$uid" "$v2/kubepods-ct$$/burstable" "$v2/kubepods-ct$$"
	jq -e --arg id "$id" --arg uid "$uid" '
		[.processes[] | select(.comm == "forktree")] as $f | ($f | length) == 3 and
		all($f[]; .container == $id and .container_name == "web" and
			.pod == "web-0" and .namespace == "shop" and .pod_uid == $uid) and
		.containers == {seen: 1, unnamed: 0} and
		(.findings[] | select(.id == "tz-repeated-access") | .fixes[0] |
			.where == "pod spec" and (.how | contains(
			"on container web (id \($id[:12])) in the pod spec of pod web-0 in namespace shop")))' "$T/json"
	[ "$(om_sum "$T/openmetrics-container" clocktrace_tz_accesses \
		"{'container': 'web', 'container_id': '${id:0:12}', 'pod': 'web-0', 'namespace': 'shop', 'pod_uid': '$uid'}")" -eq 60 ]
	[ "$(grep -c '^clocktrace_tz_accesses_total{' "$T/openmetrics-container")" -eq 1 ]
	[ "$(om_sum "$T/openmetrics-pod" clocktrace_tz_accesses \
		"{'pod': 'web-0', 'namespace': 'shop', 'pod_uid': '$uid'}")" -eq 60 ]
}

@test "a hostile annotation (a quote, a line break, 4 KiB) comes out escaped or refused, in every report" {
	v2=$(cgroup2_mount)
	id=$(printf '%064x' "$((100000 + $$))")
	cg="kubepods-cth$$/besteffort/pod6f1c9a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b/$id"
	mkdir -p "$v2/$cg"
	big=$(head -c 4096 /dev/zero | tr '\0' n)
	containerd_bundle "$id" 'we"b' $'pod"\n0' "$big" not-a-uid
	for out in json text openmetrics; do
		[ "$out" = json ] && flags=(--json) || flags=(--format "$out" --metrics-by container)
		env -u TZ CLOCKTRACE_HOST_ROOT="$T/host" "$CT" run "${flags[@]}" -o "$T/$out" -- sh -c \
			"echo \$\$ > '$v2/$cg/cgroup.procs' && exec '$TOOLS/forktree' -D 0 -k 20" \
			2>"$T/wl"
		[ "$(workload_sum "$T/wl" tz_stat)" -eq 20 ]
	done
	rmdir "$v2/$cg" "$v2/kubepods-cth$$/besteffort/pod6f1c9a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b" \
		"$v2/kubepods-cth$$/besteffort" "$v2/kubepods-cth$$"
	# The line break is \x0a, the quote kept; 4 KiB and a bad UID: none.
	jq -e '.processes[] | select(.comm == "forktree") |
		.container_name == "we\"b" and .pod == "pod\"\\x0a0" and
		.namespace == null and .pod_uid == "6f1c9a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"' "$T/json"
	[ "$(om_sum "$T/openmetrics" clocktrace_tz_accesses \
		"{'container': 'we\"b', 'pod': 'pod\"\\\\x0a0', 'namespace': ''}")" -eq 20 ]
	grep -q '^    fix in the pod spec: .* on container we"b (id [0-9a-f]*) in the pod spec of pod pod"\\x0a0, ' "$T/text"
	run ! grep -q "$big" "$T/json" "$T/text" "$T/openmetrics"
}

@test "podman run --name: the container's name in JSON and /metrics, and in the image fix" {
	workload_image
	env -u TZ "$CT" run --json -o "$T/r.json" -- podman run --rm --name "$NAME" \
		--network=none "localhost/$NAME:1" "/$WLNAME" -D 1 -W 2 -k 20 2>"$T/wl"
	[ "$(workload_sum "$T/wl" tz_stat)" -eq 60 ]
	jq -e --arg n "$NAME" --arg c "$WLNAME" '
		[.processes[] | select(.comm == $c)] as $f | ($f | length) == 3 and
		all($f[]; .container_name == $n and .pod == null and .namespace == null) and
		([$f[].tz.accesses] | add) == 60 and
		(.findings[] | select(.id == "tz-repeated-access") | .fixes[0] |
			.where == "image" and (.how | contains("image of podman container " + $n + " (id ")))' "$T/r.json"
	env -u TZ "$CT" run --format openmetrics --metrics-by container -o "$T/m" -- \
		podman run --rm --name "$NAME" --network=none "localhost/$NAME:1" \
		"/$WLNAME" -D 1 -W 2 -k 7 2>"$T/wl"
	[ "$(workload_sum "$T/wl" tz_stat)" -eq 21 ]
	[ "$(om_sum "$T/m" clocktrace_tz_accesses "{'container': '$NAME', 'pod': '', 'namespace': ''}")" -eq 21 ]
}

@test "podman kube play: the pod's container name, pod name and namespace (CRI-O's annotations), a hostile one escaped" {
	workload_image
	cat >"$T/pod.yaml" <<-EOF
	apiVersion: v1
	kind: Pod
	metadata:
	  name: $NAME
	  annotations:
	    io.kubernetes.pod.name: $NAME
	    io.kubernetes.pod.namespace: "shop\"\nx"
	    io.kubernetes.pod.uid: 0c1d2e3f-0000-4000-8000-$(printf '%012x' "$$")
	spec:
	  restartPolicy: Never
	  containers:
	  - name: wl
	    image: localhost/$NAME:1
	    command: ["/$WLNAME", "-D", "1", "-W", "2", "-k", "20"]
	EOF
	env -u TZ "$CT" attach --comm "$WLNAME" --json -o "$T/r.json" 2>"$T/ct" &
	CTPID=$!
	for _ in $(seq 200); do
		grep -q "no process named '$WLNAME' yet" "$T/ct" && break
		sleep 0.05
	done
	podman kube play --network=none "$T/pod.yaml" >/dev/null
	podman wait "$NAME-wl" >/dev/null
	podman logs "$NAME-wl" >"$T/wl" 2>&1
	kill -INT "$CTPID"
	wait "$CTPID"
	CTPID=
	[ "$(workload_sum "$T/wl" tz_stat)" -eq 60 ]
	jq -e --arg n "$NAME" --arg c "$WLNAME" --arg uid "0c1d2e3f-0000-4000-8000-$(printf '%012x' "$$")" '
		[.processes[] | select(.comm == $c)] as $f | ($f | length) == 3 and
		([$f[].tz.accesses] | add) == 60 and
		all($f[]; .container_name == $n + "-wl" and .pod == $n and
			.namespace == "shop\"\\x0ax" and .pod_uid == $uid) and
		(.findings[] | select(.id == "tz-repeated-access") | .fixes[0] |
			.where == "pod spec" and (.how | contains("in the pod spec of pod " + $n +
			" in namespace shop\"\\x0ax")))' "$T/r.json"
}

@test "doctor: the running containers counted, those no runtime file names too" {
	workload_image
	podman run -d --name "$NAME" --network=none "localhost/$NAME:1" \
		/sleep 60 >/dev/null
	count() {
		"$CT" doctor --json | jq -r '.checks[] | select(.check == "container names") |
			.status + " " + (.detail | capture("^(?<n>[0-9]+) containers running, (?<u>[0-9]+) without") | .n + " " + .u)'
	}
	read -r st n u <<<"$(count)"
	# podman's container at least, named from containers.json.
	[ "$st" = ok ]
	[ "$n" -ge 1 ]
	[ "$u" -lt "$n" ]
	# Where no runtime file is: every one of them nameless, said so.
	read -r st n u <<<"$(CLOCKTRACE_HOST_ROOT="$T/none" count)"
	[ "$st" = ok ]
	[ "$n" -ge 1 ]
	[ "$u" -eq "$n" ]
	CLOCKTRACE_HOST_ROOT="$T/none" "$CT" doctor | grep -q "^ok    container names: .* under $T/none (README: Container and pod names"
}
