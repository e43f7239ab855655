#!/bin/sh
# Builds the initramfs a matrix guest boots: busybox, the clocktrace binary
# and the workloads of one architecture with the shared libraries they load,
# jq for the reports, the host's zone file as /etc/localtime, /init and the
# guest's tests.
#   initramfs.sh ARCH BINDIR OUT.cpio.gz
# ARCH is x86_64 or arm64; BINDIR holds clocktrace and tools/ built for it
# (absent binaries are left out: a guest without them still boots and
# reports them missing).
set -eu

arch=$1
bindir=$2
out=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${VMTEST_DIR:=$top/build/vmtest}"
WORKLOADS="tzloop forktree misbehave vdsoloop"

root=$(mktemp -d "${TMPDIR:-/tmp}/vmtest-root.XXXXXX")
trap 'rm -rf "$root"' EXIT

# Where the libraries of ARCH's binaries are found: this machine's own for
# x86_64; Debian's arm64 packages, unpacked under the harness's directory,
# for arm64 (the same glibc release the cross toolchain builds against).
case $arch in
x86_64)
	sysroot=
	triplet=x86_64-linux-gnu
	busybox=/bin/busybox
	jq=$(command -v jq)
	;;
arm64)
	sysroot=$VMTEST_DIR/sysroot-arm64
	triplet=aarch64-linux-gnu
	mkdir -p "$sysroot"
	"$here/apt.sh" arm64 unpack busybox-static libc6 jq libjq1 libonig5 \
		"$sysroot" >&2
	busybox=$sysroot/bin/busybox
	jq=$sysroot/usr/bin/jq
	;;
*)
	echo "initramfs.sh: unknown arch $arch" >&2
	exit 2
	;;
esac

# The file a library NAME resolves to in the sysroot.
find_lib()
{
	for d in /lib/$triplet /usr/lib/$triplet /lib /usr/lib; do
		if [ -e "$sysroot$d/$1" ]; then
			echo "$d/$1"
			return 0
		fi
	done
	echo "initramfs.sh: $1 not found for $arch" >&2
	return 1
}

# Copies sysroot file PATH to the same path in the guest, symlinks resolved.
copy_sysroot_file()
{
	[ -e "$root$1" ] && return 0
	mkdir -p "$root$(dirname "$1")"
	cp -L "$sysroot$1" "$root$1"
}

# Copies the ELF file SRC to DEST in the guest with its interpreter and the
# libraries it needs, recursively (readelf reads every architecture).
copy_elf()
{
	mkdir -p "$root$(dirname "$2")"
	cp -L "$1" "$root$2"
	interp=$(readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	[ -z "$interp" ] || copy_sysroot_file "$interp"
	for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		path=$(find_lib "$lib")
		[ -e "$root$path" ] && continue
		copy_sysroot_file "$path"
		copy_elf "$sysroot$path" "$path"
	done
}

mkdir -p "$root/bin" "$root/etc" "$root/proc" "$root/sys" "$root/dev" \
	"$root/tmp" "$root/tests" "$root/opt/clocktrace/tools"
cp "$busybox" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
copy_elf "$jq" /bin/jq
copy_elf "$VMTEST_DIR/$arch/bpfobjs" /bin/bpfobjs
copy_elf "$VMTEST_DIR/$arch/sysloop" /opt/clocktrace/tools/sysloop
for f in clocktrace $(for w in $WORKLOADS; do echo "tools/$w"; done); do
	[ -e "$bindir/$f" ] && copy_elf "$bindir/$f" "/opt/clocktrace/$f"
done
cp -L /etc/localtime "$root/etc/localtime"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
cp "$here/init" "$root/init"
cp "$top/tests/vm/guest-tests.sh" "$root/tests/guest-tests.sh"
chmod 755 "$root/init" "$root/tests/guest-tests.sh"

(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$out.$$"
mv -f "$out.$$" "$out"
