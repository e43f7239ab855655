#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An OCI image of clocktrace, written as an OCI archive (no registry):
#	build-image.sh BINARY MANPAGE VERSION OUT.tar
# From scratch: the binary (libbpf, libdw, libelf linked in), the C library
# files it loads (ldd), its man page; no shell, no CA bundle.  Its default
# command is the exporter: every process of the node, a series per
# container, on port 9464 of every address (the DaemonSet names the pod IP).
# `podman load -i OUT.tar` loads it as localhost/clocktrace:VERSION.
set -eu
bin=$1 man=$2 version=$3 out=$4
name=localhost/clocktrace:$version

ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
buildah copy -q "$ctr" "$bin" /usr/sbin/clocktrace >/dev/null
gzip -9n <"$man" >"$out.man.gz"
buildah copy -q "$ctr" "$out.man.gz" /usr/share/man/man8/clocktrace.8.gz >/dev/null
rm -f "$out.man.gz"
# The dynamic part: the C library and its loader, at the paths ldd names.
for lib in $(ldd "$bin" | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }'); do
	buildah copy -q "$ctr" "$(readlink -f "$lib")" "$lib" >/dev/null
done
buildah config \
	--label org.opencontainers.image.title=clocktrace \
	--label org.opencontainers.image.version="$version" \
	--label org.opencontainers.image.licenses=GPL-2.0 \
	--entrypoint '["/usr/sbin/clocktrace"]' \
	--cmd '["top", "-i", "10", "--metrics-by", "container", "--listen", "0.0.0.0:9464", "-o", "/dev/null"]' \
	--port 9464 "$ctr"
buildah commit -q --rm "$ctr" "$name" >/dev/null
trap - EXIT
rm -f "$out"
buildah push -q "$name" "oci-archive:$out:$name"
