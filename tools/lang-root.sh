#!/bin/sh
# A Debian root file system with another distribution's interpreters, for
# --lang tests of versions this host's Debian does not ship: debootstrap
# minbase of SUITE (trixie: Debian 13) with PACKAGES, cached in DIR.
#
#   tools/lang-root.sh DIR [PACKAGES]    (default python3.13-minimal)
#
# Environment: SUITE (trixie), MIRROR (http://deb.debian.org/debian).
# Needs root and debootstrap; tests/lang_trixie.bats's root (python3.13 and
# ruby3.3) downloads ~45 MB the first time (~70 s).
set -eu

ROOT=${1:?usage: lang-root.sh DIR [PACKAGES]}
PKGS=${2:-python3.13-minimal}
SUITE=${SUITE:-trixie}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
STAMP=".clocktrace-lang-root $SUITE $PKGS"
NEW=$ROOT.new

die() {
	echo "lang-root: $*" >&2
	exit 1
}

# debootstrap mounts proc and sys in the root it builds: never left there.
unmount_new() {
	for m in $(awk -v d="$NEW" 'index($2, d) == 1 { print $2 }' /proc/mounts |
		   sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
}

[ -e "$ROOT/$STAMP" ] && exit 0
[ "$(id -u)" = 0 ] || die "needs root (debootstrap)"
command -v debootstrap >/dev/null || die "debootstrap not found"
trap unmount_new EXIT
unmount_new
rm -rf --one-file-system "$NEW" "$ROOT"
mkdir -p "$(dirname "$ROOT")"
# Into a side directory: an interrupted bootstrap is never reused.
debootstrap --variant=minbase --include="$(echo "$PKGS" | tr ' ' ,)" \
	"$SUITE" "$NEW" "$MIRROR" >"$NEW.log" 2>&1 ||
	{ tail -20 "$NEW.log" >&2; die "debootstrap failed (log: $NEW.log)"; }
unmount_new
touch "$NEW/$STAMP"
mv "$NEW" "$ROOT"
rm -f "$NEW.log"
