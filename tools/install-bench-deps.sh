#!/bin/sh
# Installs the peers `make bench` compares clocktrace with (Debian/Ubuntu):
# strace, perf, bpftrace, bcc's tools, GNU time, hyperfine.  Only for the
# benchmark: `make test` never needs them.  Does nothing when all are present;
# a peer that cannot be installed is reported as missing by bench.sh.
set -e

PKGS="strace linux-perf bpftrace bpfcc-tools time hyperfine python3 jq"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "bench: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "bench: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# One by one: a package this release lacks (linux-perf is linux-tools-* on
# Ubuntu) must not stop the others.
for p in $missing; do
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends "$p" >/dev/null ||
		echo "bench: could not install $p" >&2
done
exit 0
