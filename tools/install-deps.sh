#!/bin/sh
# Installs what building and testing clocktrace needs on Debian/Ubuntu;
# does nothing when everything is present.
set -e

# Build: clang/llvm for BPF, static libbpf/libelf/zlib and libdw (source
# lines of call sites) with the compressors it reads.  Tests: bats, cmocka,
# jq, strace (an oracle), musl-tools (a second libc), the Prometheus client's
# parser, curl and ss (--listen), a Prometheus server that scrapes
# --listen (tests/fleet.bats), libFuzzer's runtime (libclang-rt-14-dev)
# and cppcheck; dwz (DWARF that points at a supplementary file,
# tests/hostile.bats); headless Chromium with a font to render the --html
# report in (tests/html.bats).  The kernel matrix (make vmtest): qemu for
# both architectures, a static busybox and cpio for the guests' initramfs,
# the arm64 cross compiler.  debootstrap: a Debian 13 root whose python3.13
# and ruby3.3 --lang reads (tests/lang_trixie.bats), and the chroot test's
# root.
# make image and tests/image.bats: buildah writes the OCI image, podman
# runs it; runc, because crun refuses cgroup v1 hybrid hosts ("cgroups in
# hybrid mode not supported") and tests/podman/containers.conf picks runc.
# catatonit: the pause process of podman kube play's infra container
# (tests/container_names.bats).
# libc6-dbg: the C library's separate debug file, where --stacks finds the
# names of its static functions (__tzfile_read) and its lines
# (tests/stacks.bats).
# The libraries linked statically, also installed for arm64 (make ARCH=arm64).
STATIC_DEV="libbpf-dev libelf-dev libdw-dev liblzma-dev libbz2-dev zlib1g-dev"
PKGS="clang llvm bpftool $STATIC_DEV pkg-config make gcc
bats libcmocka-dev jq strace musl-tools python3 python3.11-dev python3-prometheus-client ruby
libclang-rt-14-dev cppcheck dwz man-db libcap2-bin util-linux procps
curl iproute2 chromium fonts-dejavu-core prometheus
qemu-system-x86 qemu-system-arm busybox-static cpio gcc-aarch64-linux-gnu
libc6-dev-arm64-cross debootstrap libc6-dbg
buildah podman runc catatonit python3-yaml"
# Extras for one target only: the quick make test must not need them.
case "${1:-}" in
chroot) ;;
# make bench: the peers it compares clocktrace with (a peer that cannot
# be installed is reported as missing by bench.sh).
bench) PKGS="$PKGS linux-perf bpftrace bpfcc-tools time hyperfine" ;;
# make ARCH=arm64: Debian's cross compiler and the arm64 builds of the
# libraries linked statically (multiarch), qemu to boot an arm64 kernel.
arm64) PKGS="$PKGS gcc-aarch64-linux-gnu qemu-system-arm $(for p in $STATIC_DEV; do
	printf '%s:arm64 ' "$p"; done)" ;;
esac

# The flame-graph check (tests) runs stackvis from npm; a machine with its
# own Node.js keeps it.
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"

# arm64 packages install beside the native ones once dpkg knows the arch.
add_foreign_arch() {
	dpkg --print-foreign-architectures | grep -qx "$1" && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "clocktrace: dpkg does not know $1 (run as root: sudo make deps-$1)" >&2
		exit 1
	fi
	dpkg --add-architecture "$1"
}
[ "${1:-}" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ] &&
	add_foreign_arch arm64

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done

install_packages() {
	if [ "$(id -u)" != 0 ]; then
		echo "clocktrace: missing packages:$missing (run as root: sudo make deps)" >&2
		exit 1
	fi
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# Ubuntu ships bpftool in linux-tools; Debian in its own package.
[ -z "$missing" ] || install_packages

# npm packages, pinned by their lock files, without install scripts.
cd "$(dirname "$0")/.."
if [ ! -d tools/flamegraph/node_modules ]; then
	npm ci --prefix tools/flamegraph --ignore-scripts --no-audit --no-fund \
		--loglevel=error >/dev/null
fi
