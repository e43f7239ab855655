#!/bin/bash
# Includes go one way between the folders of user/ (docs/architecture.md):
# core includes none of the others, report and libc only core, trace those
# three, cmd any.  An include the other way is an include circle or a pure
# folder reaching into one that loads BPF, which the unit tests could not
# link.  Headers are named without their folder, so each is looked up.
#   lint-includes.sh [ROOT]    prints FILE:LINE: ... per finding; exit 1 if any
set -u
cd "${1:-.}" || exit 2

declare -A may=(
	[core]="core"
	[report]="core report"
	[libc]="core libc"
	[trace]="core libc report trace"
	[cmd]="core libc report trace cmd"
)
declare -A home
for h in user/*/*.h; do
	home[$(basename "$h")]=$(basename "$(dirname "$h")")
done

bad=0
for f in user/*/*.[ch]; do
	dir=$(basename "$(dirname "$f")")
	[ -n "${may[$dir]:-}" ] || { echo "$f: folder $dir has no rule"; bad=1; continue; }
	while IFS=: read -r line hdr; do
		to=${home[$hdr]:-}
		[ -n "$to" ] || continue
		case " ${may[$dir]} " in
		*" $to "*) ;;
		*) echo "$f:$line: $dir includes $to's $hdr"; bad=1 ;;
		esac
	done < <(awk '/^#include "/ { sub(/^#include "/, ""); sub(/".*/, "");
				    n = split($0, p, "/"); print FNR ":" p[n] }' "$f")
done
exit $bad
