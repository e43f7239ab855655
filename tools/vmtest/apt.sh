#!/bin/sh
# Debian packages for the kernel matrix, fetched through apt with a
# configuration of the harness's own (sources, lists and cache under
# $VMTEST_DIR/apt/DEBARCH), from the mirror this machine's apt uses.
# Nothing is installed: packages are downloaded and unpacked.
#   apt.sh DEBARCH download SUITE PATTERN DESTDIR   newest match, prints its name
#   apt.sh DEBARCH unpack PKG... DESTDIR            dpkg -x of each, cached
# A second run with everything cached goes to no network.
set -eu

: "${VMTEST_DIR:=build/vmtest}"
arch=$1
cmd=$2
shift 2
top=$(cd "$VMTEST_DIR" && pwd)/apt/$arch
# The suites a configuration has lists for; one is added when a row needs it.
suites_file=$top/suites

# The mirror of the first deb822 or one-line source (the archive itself
# when there is none, e.g. a machine configured otherwise).
mirror()
{
	m=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		head -n 1)
	[ -n "$m" ] || m=$(awk '$1 == "deb" && $2 ~ /debian/ { print $2; exit }' \
		/etc/apt/sources.list 2>/dev/null)
	echo "${m:-http://deb.debian.org/debian}"
}

# Libraries and busybox come from the suite this machine runs, so that
# they match the C library the binaries were built against.
host_suite()
{
	. /etc/os-release
	echo "${VERSION_CODENAME:-bookworm}"
}

apt_opts()
{
	echo "-q -o Dir::Etc::sourcelist=$top/sources.list -o Dir::Etc::sourceparts=-" \
		"-o Dir::State::Lists=$top/lists -o Dir::Cache=$top/cache" \
		"-o Dir::State::status=$top/status -o APT::Architecture=$arch" \
		"-o APT::Architectures=$arch -o Acquire::Languages=none" \
		"-o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false" \
		"-o APT::Sandbox::User=root -o Debug::NoLocking=true"
}

# apt-get update when SUITE is new to this configuration.
ensure_suite()
{
	mkdir -p "$top/lists/partial" "$top/cache/archives/partial" "$top/debs"
	: > "$top/status"
	touch "$suites_file"
	grep -qx "$1" "$suites_file" && return 0
	echo "$1" >> "$suites_file"
	m=$(mirror)
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	sed "s|.*|deb [signed-by=$keyring] $m & main|" "$suites_file" > "$top/sources.list"
	echo "# vmtest: apt-get update for $arch $(tr '\n' ' ' < "$suites_file")" >&2
	# shellcheck disable=SC2046
	apt-get $(apt_opts) update >&2 || { sed -i "/^$1\$/d" "$suites_file"; return 1; }
}

# The newest package named like PATTERN (a glob) that SUITE has.
newest()
{
	# shellcheck disable=SC2046
	apt-cache $(apt_opts) pkgnames "${2%%\**}" |
		while read -r name; do
			# shellcheck disable=SC2254
			case $name in $2) echo "$name" ;; esac
		done | sort -V | tail -n 1
}

# Downloads PKG (its candidate) into the cache of .debs; prints the file.
fetch_deb()
{
	deb=$(ls "$top/debs/$1"_*.deb 2>/dev/null | tail -n 1)
	if [ -z "$deb" ]; then
		# shellcheck disable=SC2046
		(cd "$top/debs" && apt-get $(apt_opts) download "$1" >&2)
		deb=$(ls "$top/debs/$1"_*.deb | tail -n 1)
	fi
	echo "$deb"
}

case $cmd in
download)
	suite=$1 pattern=$2 dest=$3
	# Guests boot in parallel (VMTEST_JOBS): one apt at a time per
	# configuration, or two updates write the same partial files.
	mkdir -p "$top"
	exec 9> "$top/lock"
	flock 9
	# The cached pick, so that a second run needs no network.
	pick=$top/pick-$(echo "$suite $pattern" | tr -c 'A-Za-z0-9.\n' _)
	if [ -s "$pick" ] && [ -d "$dest/$(cat "$pick")" ]; then
		cat "$pick"
		exit 0
	fi
	ensure_suite "$suite"
	name=$(newest "$suite" "$pattern")
	[ -n "$name" ] || { echo "vmtest: no $pattern in $suite" >&2; exit 1; }
	deb=$(fetch_deb "$name")
	rm -rf "$dest/$name.tmp"
	mkdir -p "$dest/$name.tmp"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest/$name.tmp" ./boot
	rm -rf "${dest:?}/$name"
	mv "$dest/$name.tmp" "$dest/$name"
	# Only /boot is kept; the package is not needed again.
	rm -f "$deb"
	echo "$name" > "$pick"
	echo "$name"
	;;
unpack)
	# The last argument is the destination.
	for dest; do :; done
	ensure_suite "$(host_suite)"
	while [ $# -gt 1 ]; do
		stamp=$dest/.unpacked-$1
		if [ ! -e "$stamp" ]; then
			dpkg -x "$(fetch_deb "$1")" "$dest"
			touch "$stamp"
		fi
		shift
	done
	;;
*)
	echo "usage: $0 DEBARCH download|unpack ..." >&2
	exit 2
	;;
esac
