#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Turns an installed tree into a Debian package with dpkg-deb (no debhelper).
#
#   packaging/build-deb.sh VERSION STAGING OUTPUT.deb [DEBIAN_ARCH]
#
# DEBIAN_ARCH defaults to this machine's; a cross build names its own, and
# STRIP its binutils' strip (aarch64-linux-gnu-strip).
#
# STAGING is what `make install DESTDIR=STAGING PREFIX=/usr` left: usr/sbin,
# usr/share/man/man8, usr/share/bash-completion/completions,
# usr/lib/systemd/system, and etc/default (conffiles).  This script
# adds what Debian wants on top (stripped binary, gzipped man page,
# copyright, DEBIAN/control with Depends from the binary's needs, md5sums)
# and builds OUTPUT.deb with files owned by root.
set -eu

VERSION=${1:?usage: $0 VERSION STAGING OUTPUT.deb}
STAGING=${2:?usage: $0 VERSION STAGING OUTPUT.deb}
OUTPUT=${3:?usage: $0 VERSION STAGING OUTPUT.deb}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN="$STAGING/usr/sbin/clocktrace"

die() { echo "build-deb: $*" >&2; exit 1; }

[ -x "$BIN" ] || die "no $BIN (make install DESTDIR=$STAGING PREFIX=/usr)"
ARCH=${4:-$(dpkg --print-architecture)}
STRIP=${STRIP:-strip}

# What the binary still needs from the system: the C library and nothing
# else (libbpf, libelf and zlib are linked in).  Anything more is an error
# here, not a silently wrong Depends.
needed=$(LC_ALL=C readelf -d "$BIN" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in $needed; do
	case $lib in
	libc.so.6 | libm.so.6 | ld-linux*.so.*) ;;
	*) die "the binary needs $lib: link it statically or add its package to Depends" ;;
	esac
done
# The oldest libc6 that has every versioned symbol the binary uses, as
# dpkg-shlibdeps would say it from glibc's symbols file.
glibc=$(LC_ALL=C readelf --dyn-syms -W "$BIN" | grep -o '@GLIBC_[0-9.]*' |
	sed 's/@GLIBC_//' | sort -uV | tail -1)
DEPENDS="libc6${glibc:+ (>= $glibc)}"

$STRIP --strip-unneeded --remove-section=.comment "$BIN"
for page in "$STAGING"/usr/share/man/man*/*.[0-9]; do
	[ -e "$page" ] || continue
	gzip -9nf "$page"
done
install -D -m 0644 "$HERE/copyright" \
	"$STAGING/usr/share/doc/clocktrace/copyright"

mkdir -p "$STAGING/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$STAGING" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" \
    -e "s/@DEPENDS@/$DEPENDS/" -e "s/@INSTALLED_SIZE@/$size/" \
    "$HERE/control.in" >"$STAGING/DEBIAN/control"
(cd "$STAGING" && find usr -type f -print0 | sort -z | xargs -0 md5sum) \
	>"$STAGING/DEBIAN/md5sums"
# Under /etc: the admin's to edit, kept on upgrade, removed on purge.
if [ -d "$STAGING/etc" ]; then
	(cd "$STAGING" && find etc -type f | sort | sed 's|^|/|') \
		>"$STAGING/DEBIAN/conffiles"
fi
# Directories 0755, files 0644 except the binary, whatever the umask was.
find "$STAGING" -type d -exec chmod 0755 {} +
find "$STAGING" -type f -exec chmod 0644 {} +
chmod 0755 "$BIN"

dpkg-deb --root-owner-group -Zxz --build "$STAGING" "$OUTPUT" >/dev/null
echo "built $OUTPUT (Depends: $DEPENDS)"
