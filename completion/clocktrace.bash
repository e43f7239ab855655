# SPDX-License-Identifier: GPL-2.0
# bash completion for clocktrace(8).
#
# The option lists mirror `clocktrace COMMAND --help` (user/core/cli.c's one
# option table); tests/docs.bats and tests/package.bats fail when they
# drift apart.  Works with or without the bash-completion
# package: it uses none of its helpers, except _command_offset (if loaded)
# to complete PROG's own arguments after `clocktrace run`.

_clocktrace_commands="run attach top bench doctor"

_clocktrace_opts_run="-o --output --html --compare --fix --repeat -j --json
	--format -i --interval -T --timestamp --top --per-process --libc --lang
	--lang-depth --stacks --vdso --vdso-rate -u --user --follow --cgroup --unit --metrics-by --max-procs --ringbuf-kb
	--attach
	-v --verbose -h --help"
_clocktrace_opts_attach="-o --output --html -j --json --format -p --pid
	--comm --cgroup --unit --tree -d --duration -i --interval -T --timestamp
	--top --per-process --libc --lang --lang-depth --stacks --vdso --vdso-rate --listen --metrics-by
	--max-procs --ringbuf-kb --attach -v --verbose -h --help"
_clocktrace_opts_top="-o --output -j --json --format -d --duration
	-i --interval -T --timestamp -n --count --top --by --libc --stacks --vdso --vdso-rate --listen
	--cgroup --unit --metrics-by --max-procs --ringbuf-kb --attach -v --verbose
	-h --help"
_clocktrace_opts_bench="-c --clock -d --duration -f --fork --cpu -j --json
	-o --output -h --help"
_clocktrace_opts_doctor="-p --pid -j --json -h --help"

# Options that take a value (in any command that has them).
_clocktrace_takes_arg="-o --output --html --fix --repeat --format -p --pid
	--comm -d --duration -i --interval -n --count --top -u --user
	--max-procs --ringbuf-kb -c --clock --cpu --listen --metrics-by --cgroup
	--unit --by --attach --vdso-rate --lang-depth"

_clocktrace_clocks="realtime monotonic monotonic_raw realtime_coarse
	monotonic_coarse boottime tai process_cputime_id thread_cputime_id"

# Is $1 one of the words of $2?
_clocktrace_in() {
	local w
	for w in $2; do
		[[ $w == "$1" ]] && return 0
	done
	return 1
}

# Complete the last element of a comma-separated list: $1 the word so far,
# $2 the candidates.
_clocktrace_list() {
	local head="" last=$1 c
	if [[ $1 == *,* ]]; then
		head=${1%,*},
		last=${1##*,}
	fi
	for c in $2; do
		[[ $c == "$last"* ]] && COMPREPLY+=("$head$c")
	done
	return 0
}

_clocktrace_pids() {
	local d pids=""
	for d in /proc/[0-9]*; do
		pids+=" ${d#/proc/}"
	done
	_clocktrace_list "$1" "$pids"
}

_clocktrace_comms() {
	local f c
	local -A seen=()
	for f in /proc/[0-9]*/comm; do
		read -r c 2>/dev/null <"$f" || continue
		[[ $c == "$1"* && -z ${seen[$c]+x} ]] || continue
		seen[$c]=1
		# A comm may hold spaces or quotes: quote it for the line.
		COMPREPLY+=("$(printf '%q' "$c")")
	done
	return 0
}

# COMPREPLY += compgen's words.  A -W list splits on blanks; file, user
# and command names come one per line, as they may hold spaces.
_clocktrace_add() {
	local IFS=$'\n'
	[[ $1 == -W ]] && IFS=$' \t\n'
	# shellcheck disable=SC2207 # split on IFS, set above
	COMPREPLY+=($(compgen "$@")) || true
	return 0
}

# A cgroup v2 path: absolute, or as the tool takes it, relative to the
# mount (system.slice/cron.service); directories only.
_clocktrace_cgroups() {
	local mnt=/sys/fs/cgroup d
	[[ -f $mnt/cgroup.controllers ]] || mnt=/sys/fs/cgroup/unified
	compopt -o filenames -o nospace 2>/dev/null || true
	if [[ $1 == /* ]]; then
		_clocktrace_add -d -- "$1"
		return 0
	fi
	for d in "$mnt/$1"*/; do
		[[ -d $d ]] || continue
		d=${d#"$mnt/"}
		COMPREPLY+=("${d%/}/")
	done
	return 0
}

# --unit NAME is system.slice/NAME: the units that have a cgroup now.
_clocktrace_units() {
	local mnt=/sys/fs/cgroup d
	[[ -f $mnt/cgroup.controllers ]] || mnt=/sys/fs/cgroup/unified
	for d in "$mnt/system.slice/$1"*/; do
		[[ -d $d ]] || continue
		d=${d%/}
		COMPREPLY+=("$(printf '%q' "${d##*/}")")
	done
	return 0
}

_clocktrace_files() {
	compopt -o filenames 2>/dev/null || true
	_clocktrace_add -f -- "$1"
}

# The value of option $1 (in command $2), the word so far being $3.
_clocktrace_value() {
	local opt=$1 cmd=$2 cur=$3
	case $opt in
	-o | --output | --html) _clocktrace_files "$cur" ;;
	--fix) _clocktrace_add -W "TZ=:/etc/localtime TZ=UTC" -- "$cur" ;;
	-p | --pid) _clocktrace_pids "$cur" ;;
	--comm) _clocktrace_comms "$cur" ;;
	--cgroup) _clocktrace_cgroups "$cur" ;;
	--unit) _clocktrace_units "$cur" ;;
	--format) _clocktrace_add -W "text json openmetrics folded" -- "$cur" ;;
	--metrics-by) _clocktrace_add -W "comm cgroup pid container pod" -- "$cur" ;;
	--by) _clocktrace_add -W "process container cgroup" -- "$cur" ;;
	--attach) _clocktrace_add -W "auto tracepoint fentry" -- "$cur" ;;
	--lang) _clocktrace_add -W "usdt" -- "$cur" ;;	# --lang=usdt only: optional
	-u | --user) _clocktrace_add -u -- "$cur" ;;
	-c | --clock) _clocktrace_list "$cur" "$_clocktrace_clocks" ;;
	*) ;;	# numbers: nothing to offer
	esac
	return 0
}

_clocktrace() {
	local -a cw=("${COMP_WORDS[@]}") words=()
	local cword=0 strip=0 joined=0 j t how

	COMPREPLY=()
	((COMP_CWORD < ${#cw[@]})) || cw+=("")
	# Re-join "--opt" "=" "value", which COMP_WORDBREAKS splits apart,
	# into "--opt=value"; bash then replaces only what follows the "=".
	for ((j = 0; j < ${#cw[@]}; j++)); do
		t=${cw[j]}
		if [[ $t == "=" && ${#words[@]} -gt 0 &&
		      ${words[-1]} == --* && ${words[-1]} != *=* ]]; then
			words[-1]+="="
			joined=1
			how=joined
		elif ((joined)); then
			words[-1]+=$t
			joined=0
			how=joined
		else
			words+=("$t")
			how=word
		fi
		if ((j == COMP_CWORD)); then
			cword=$((${#words[@]} - 1))
			[[ $how == joined ]] && strip=1
		fi
	done
	_clocktrace_complete "${words[cword]}" words "$cword"
	if ((strip)); then
		t=${words[cword]%%=*}=
		for j in "${!COMPREPLY[@]}"; do
			COMPREPLY[j]=${COMPREPLY[j]#"$t"}
		done
	fi
	return 0
}

# run's PROG: a command, or a path to one.
_clocktrace_prog() {
	if [[ $1 == */* ]]; then
		_clocktrace_files "$1"
	else
		_clocktrace_add -c -- "$1"
	fi
}

# $1 the word being completed, $2 the name of the words array, $3 its index.
_clocktrace_complete() {
	local cur=$1 cword=$3
	local -n _w=$2
	local cmd=${_w[1]:-} i w opts prev=""

	if ((cword == 1)); then
		_clocktrace_add -W "$_clocktrace_commands -h --help -V --version" \
			-- "$cur"
		return 0
	fi
	_clocktrace_in "$cmd" "$_clocktrace_commands" || return 0
	opts=_clocktrace_opts_$cmd
	opts=${!opts}

	# Walk the words before the cursor: skip option values; in run, the
	# first operand (or the word after --) is PROG, and the rest is its.
	i=2
	while ((i < cword)); do
		w=${_w[i]}
		if [[ $cmd == run && ($w == -- || $w != -*) ]]; then
			[[ $w == -- ]] && ((i++))
			if ((i == cword)); then
				_clocktrace_prog "$cur"
				return 0
			fi
			if declare -F _command_offset >/dev/null; then
				_command_offset "$i"
			else
				_clocktrace_files "$cur"
			fi
			return 0
		fi
		if [[ $w != *=* ]] && _clocktrace_in "$w" "$_clocktrace_takes_arg" &&
		   _clocktrace_in "$w" "$opts"; then
			((i++))
		fi
		((i++))
	done
	((cword >= 3)) && prev=${_w[cword - 1]}

	# The value of an option: "-o FILE" or "--output=FILE".
	if [[ -n $prev && $prev != *=* ]] &&
	   _clocktrace_in "$prev" "$_clocktrace_takes_arg" &&
	   _clocktrace_in "$prev" "$opts"; then
		_clocktrace_value "$prev" "$cmd" "$cur"
		return 0
	fi
	if [[ $cur == --*=* ]]; then
		local opt=${cur%%=*} val=${cur#*=}
		_clocktrace_in "$opt" "$opts" || return 0
		_clocktrace_value "$opt" "$cmd" "$val"
		for i in "${!COMPREPLY[@]}"; do
			COMPREPLY[i]="$opt=${COMPREPLY[i]}"
		done
		return 0
	fi
	if [[ $cur == -* || -z $cur || $cmd != run ]]; then
		# "--" ends run's options; it is in no --help table.
		[[ $cmd == run ]] && opts+=" --"
		_clocktrace_add -W "$opts" -- "$cur"
		return 0
	fi
	_clocktrace_prog "$cur"	# run: a word that may be PROG
	return 0
}

complete -F _clocktrace clocktrace
