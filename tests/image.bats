#!/usr/bin/env bats
# make image, run as the DaemonSet runs it (packaging/kubernetes): podman
# with hostPID, the BTF and cgroup mounts, exactly the DaemonSet's
# capabilities and seccomp setting; a workload on the host and one in
# another podman container counted exactly through /metrics.

bats_require_minimum_version 1.5.0
load helpers

# runc and the rlimits this machine allows (tests/podman/containers.conf).
export CONTAINERS_CONF="$ROOT/tests/podman/containers.conf"
VERSION=$(sed -n 's/^VERSION[[:space:]]*:=[[:space:]]*//p' "$ROOT/Makefile")
IMAGE="localhost/clocktrace:$VERSION"
DS="$ROOT/packaging/kubernetes/daemonset.yaml"

setup() {
	T=$(mktemp -d)
	NAME="ct-image-test-$$"
}

teardown() {
	[ -n "${CTPID:-}" ] && kill "$CTPID" 2>/dev/null
	podman rm -f "$NAME" "$NAME-wl" >/dev/null 2>&1 || true
	podman rmi -f "localhost/$NAME-wl:1" >/dev/null 2>&1 || true
	rm -rf "$T"
}

# A field of the DaemonSet's container, as JSON (python3-yaml: kubectl
# cannot map kinds without a server, even with --dry-run=client).
ds_container() {
	/usr/bin/python3 - "$DS" "$1" <<'PY'
import json, sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
ds = [d for d in docs if d["kind"] == "DaemonSet"][0]
spec = ds["spec"]["template"]["spec"]
c = spec["containers"][0]
want = {"caps": lambda: c["securityContext"]["capabilities"]["add"],
        "drop": lambda: c["securityContext"]["capabilities"]["drop"],
        "hostPID": lambda: spec["hostPID"],
        "mounts": lambda: sorted(m["mountPath"] for m in c["volumeMounts"]),
        "seccomp": lambda: c["securityContext"]["seccompProfile"]["type"]}
print(json.dumps(want[sys.argv[2]]()))
PY
}

# The podman flags of the DaemonSet's pod spec: its capabilities and
# seccomp setting, hostPID, its mounts read-only (made where missing).
ds_podman_flags() {
	local caps
	caps=$(ds_container caps | jq -r 'map("CAP_" + .) | join(",")')
	[ "$(ds_container hostPID)" = true ]
	[ "$(ds_container drop)" = '["ALL"]' ]
	[ "$(ds_container seccomp)" = '"Unconfined"' ]
	printf -- '--pid=host --cap-drop=all --cap-add=%s --security-opt seccomp=unconfined --read-only' "$caps"
	for m in $(ds_container mounts | jq -r '.[]'); do
		# As the kubelet does for the DaemonSet's DirectoryOrCreate.
		mkdir -p "$m"
		printf -- ' -v %s:%s:ro' "$m" "$m"
	done
}

free_port() {
	/usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Sum of family $2's samples with labels $3 (python dict) in file $1.
om_sum() {
	/usr/bin/python3 - "$@" <<'PY'
import ast, sys
from prometheus_client.parser import text_string_to_metric_families
want = ast.literal_eval(sys.argv[3])
n = 0
for f in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in f.samples:
        if s.name == sys.argv[2] + "_total" and \
           all(s.labels.get(k) == v for k, v in want.items()):
            n += s.value
print(int(n))
PY
}

# An image of one program and the C library files it loads (from scratch).
workload_image() {
	local c lib
	c=$(buildah from scratch)
	buildah copy -q "$c" "$1" "/$(basename "$1")" >/dev/null
	for lib in $(ldd "$1" | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
		buildah copy -q "$c" "$(readlink -f "$lib")" "$lib" >/dev/null
	done
	buildah commit -q --rm "$c" "$2" >/dev/null
}

@test "the manifests parse: a DaemonSet with the documented capabilities, a debug pod and a PodMonitor" {
	[ "$(ds_container caps)" = '["BPF", "PERFMON", "SYS_PTRACE", "DAC_READ_SEARCH"]' ]
	[ "$(ds_container mounts)" = '["/run/containerd/io.containerd.runtime.v2.task", "/run/containers/storage/overlay-containers", "/sys/fs/cgroup", "/sys/kernel/btf"]' ]
	for f in "$ROOT"/packaging/kubernetes/*.yaml; do
		/usr/bin/python3 -c 'import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
assert docs and all("apiVersion" in d and "kind" in d for d in docs)' "$f"
	done
}

@test "make image: an OCI archive podman loads, the exporter its default command" {
	make -C "$ROOT" -s image
	archive="$ROOT/build/clocktrace-image.tar"
	size=$(stat -c %s "$archive")
	echo "# image archive: $size bytes" >&3
	[ "$size" -lt $((16 * 1024 * 1024)) ]
	podman load -q -i "$archive"
	[ "$(podman image inspect -f '{{json .Config.Entrypoint}}' "$IMAGE")" = '["/usr/sbin/clocktrace"]' ]
	podman image inspect -f '{{json .Config.Cmd}}' "$IMAGE" | jq -e '.[0] == "top" and index("--listen") > 0'
}

@test "the image under the DaemonSet's settings: host and container workloads exact, CapEff the documented set" {
	make -C "$ROOT" -s image
	podman load -q -i "$ROOT/build/clocktrace-image.tar"
	name="ctfork$$"
	cp "$TOOLS/forktree" "$T/$name"
	workload_image "$T/$name" "localhost/$NAME-wl:1"
	port=$(free_port)
	# shellcheck disable=SC2046
	podman run -d --name "$NAME" --network=host $(ds_podman_flags) "$IMAGE" \
		attach --comm "$name" --metrics-by container \
		--listen "127.0.0.1:$port" -o /dev/null >/dev/null
	for _ in $(seq 100); do
		curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" && break
		sleep 0.1
	done
	pid=$(podman inspect -f '{{.State.Pid}}' "$NAME")
	# attach without --libc: cap_dac_read_search, cap_sys_ptrace, cap_bpf.
	[ "$(awk '$1 == "CapEff:" { print $2 }' "/proc/$pid/status")" = 0000008000080004 ]
	env -u TZ "$T/$name" -D 1 -W 2 -k 5 2>"$T/host.wl"
	[ "$(workload_sum "$T/host.wl" tz_stat)" -eq 15 ]
	podman run --name "$NAME-wl" --network=none "localhost/$NAME-wl:1" \
		"/$name" -D 1 -W 2 -k 7 2>"$T/ctr.wl"
	[ "$(workload_sum "$T/ctr.wl" tz_stat)" -eq 21 ]
	id=$(podman inspect -f '{{.Id}}' "$NAME-wl")
	for _ in $(seq 100); do
		curl -sf -o "$T/m" "http://127.0.0.1:$port/metrics"
		[ "$(om_sum "$T/m" clocktrace_tz_accesses "{'container_id': '${id:0:12}'}")" -ge 21 ] &&
			[ "$(om_sum "$T/m" clocktrace_tz_accesses "{'container_id': ''}")" -ge 15 ] && break
		sleep 0.1
	done
	[ "$(om_sum "$T/m" clocktrace_tz_accesses "{'container_id': '${id:0:12}', 'pod_uid': ''}")" -eq 21 ]
	[ "$(om_sum "$T/m" clocktrace_tz_accesses "{'container_id': ''}")" -eq 15 ]
	ps -o rss=,time= -p "$pid" | sed 's/^/# exporter RSS KiB, CPU: /' >&3
	podman stop -t 10 "$NAME" >/dev/null
	[ "$(podman inspect -f '{{.State.ExitCode}}' "$NAME")" -eq 0 ]
}

@test "a finding for a process in a podman container names it and proposes ENV TZ=:/etc/localtime for its image" {
	name="ctenv$$"
	cp "$TOOLS/forktree" "$T/$name"
	workload_image "$T/$name" "localhost/$NAME-wl:1"
	"$CT" attach --comm "$name" --json -o "$T/r.json" 2>"$T/ct.err" &
	CTPID=$!
	for _ in $(seq 100); do
		grep -q "waiting for one to exec" "$T/ct.err" && break
		sleep 0.05
	done
	podman run --name "$NAME-wl" --network=none "localhost/$NAME-wl:1" \
		"/$name" -D 1 -W 1 -k 12 2>"$T/ctr.wl"
	[ "$(workload_sum "$T/ctr.wl" tz_stat)" -eq 24 ]
	id=$(podman inspect -f '{{.Id}}' "$NAME-wl")
	kill -TERM "$CTPID"
	wait "$CTPID"
	CTPID=
	# Named as podman ps names it (containers.json), with its id.
	jq -e --arg id "${id:0:12}" --arg n "$NAME-wl" '.findings[] | select(.id == "tz-repeated-access") |
		(.pids | length) == 2 and .fixes[0].where == "image" and
		(.fixes[0].how | contains("ENV TZ=:/etc/localtime") and
			contains("podman container " + $n + " (id " + $id + ";")) and
		.fixes[1].where == "container run" and
		(.fixes[1].how | contains("podman run -e TZ=:/etc/localtime"))' "$T/r.json"
}
