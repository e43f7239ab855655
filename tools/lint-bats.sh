#!/bin/bash
# Rejects a '!'-negated command that is not the last command of its @test
# or function.  Bash's errexit ignores the status of a command inverted
# with '!', so bats runs on past a "! grep ..." that matched: only the last
# command, whose status the test returns, is still an assertion.  Use
# "run ! cmd", "[ ... ]" or an explicit "cmd && false" there instead.
# Also allowed: "! cmd || other" (the list's status is other's) and a '!'
# inside an if/while/until condition.  For the same reason a test that an
# "&&" joins to another test ("[ a ] && [ b ]") is no assertion but as the
# last command: a failing "[ a ]" only skips "[ b ]".
#   lint-bats.sh FILE...    prints FILE:LINE: ... per finding; exit 1 if any
set -u
[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 2; }

awk '
# One character scanner per body: a stack of quoting contexts, so that
# separators inside quotes, $(...), ${...} and [[ ... ]] are not commands.
function reset_body() {
	nbang = 0; lastbang = 0; lastline = 0; cond = 0
	nand = 0; nchain = 0; prevtest = 0
	seg = ""; segline = 0; sp = 0; st[0] = "T"
}

# A command ended by SEP ("nl", ";", "&&", "||", "&", "(", ")", "{", "}").
function end_seg(sep,    s, w) {
	s = seg
	seg = ""
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	# Reserved words that start a command list rather than a command.
	while (match(s, /^(then|do|else|time)([ \t]+|$)/)) {
		w = substr(s, 1, RLENGTH)
		if (w ~ /^(then|do)/)
			cond = 0
		s = substr(s, RLENGTH + 1)
	}
	if (s == "")
		return
	if (s ~ /^(if|elif|while|until)([ \t]|$)/)
		cond = 1
	# A chain of tests joined by "&&" that ends the list ("nl", ";"):
	# one followed by "|| { ...; false; }", "&& break" or a ")" is fine.
	istest = (s ~ /^(\[|\[\[|test)([ \t]|$)/) && !cond
	if (prevtest && istest)
		chain[++nchain] = prevline
	if (!istest || sep != "&&") {
		if (istest && (sep == "nl" || sep == ";"))
			for (k = 1; k <= nchain; k++)
				if (!nand || andtest[nand] != chain[k])
					andtest[++nand] = chain[k]
		nchain = 0
	}
	prevtest = istest && sep == "&&"
	prevline = segline
	lastline = segline
	lastbang = 0
	if (s ~ /^!([ \t]|$)/ && !cond) {
		lastbang = 1
		if (sep != "||") {
			bang[++nbang] = segline
		}
	}
}

function finish_body(    i) {
	end_seg("nl")
	for (i = 1; i <= nbang; i++) {
		if (lastbang && bang[i] == lastline)
			continue
		printf "%s:%d: a mid-test \"!\" is no assertion: bats ignores " \
			"its status; use run !, [ ... ] or cmd && false\n", \
			FILENAME, bang[i]
		bad = 1
	}
	for (i = 1; i <= nand; i++) {
		if (andtest[i] == lastline)
			continue
		printf "%s:%d: a test joined by \"&&\" to another is no " \
			"assertion: bats ignores its status; one [ ... ] a line\n", \
			FILENAME, andtest[i]
		bad = 1
	}
	inbody = 0
}

function add(c) {
	if (seg == "" && c ~ /[ \t]/)
		return
	if (seg == "")
		segline = FNR
	seg = seg c
}

function push(s) { st[++sp] = s }
function pop() { if (sp > 0) sp-- }

# Scans one line of a body.
function scan(line,    i, n, c, c2, top, m) {
	n = length(line)
	for (i = 1; i <= n; i++) {
		c = substr(line, i, 1)
		c2 = substr(line, i, 2)
		top = st[sp]
		if (top == "S") {
			if (c == "\047") pop()
			add(c); continue
		}
		if (c == "\\") {
			if (i == n) return 1	# continuation
			add(c2); i++; continue
		}
		if (top == "D") {
			if (c == "\"") pop()
			else if (c2 == "$(") { push("C"); add(c2); i++; continue }
			else if (c2 == "${") { push("V"); add(c2); i++; continue }
			else if (c == "`") push("B")
			add(c); continue
		}
		if (top == "B") {
			if (c == "`") pop()
			add(c); continue
		}
		if (c == "\047") { push("S"); add(c); continue }
		if (c == "\"") { push("D"); add(c); continue }
		if (c == "`") { push("B"); add(c); continue }
		if (c2 == "$(") { push("C"); add(c2); i++; continue }
		if (c2 == "${") { push("V"); add(c2); i++; continue }
		if (top == "V") {
			if (c == "}") pop()
			add(c); continue
		}
		if (top == "C" || top == "P") {
			if (c == "(") push("P")
			else if (c == ")") pop()
			add(c); continue
		}
		if (top == "W") {
			if (c2 == "]]") { pop(); add(c2); i++; continue }
			add(c); continue
		}
		# Unquoted, at command level.
		if (c == "#" && (seg == "" || substr(line, i - 1, 1) ~ /[ \t]/))
			break
		if (c2 == "[[" && seg == "") { push("W"); add(c2); i++; continue }
		if (c2 == "<<" && substr(line, i + 2, 1) != "<") {
			m = substr(line, i + 2)
			if (match(m, /^-?[ \t]*["\047]?[A-Za-z_][A-Za-z0-9_]*/)) {
				hd = substr(m, 1, RLENGTH)
				hdtab = (hd ~ /^-/)
				gsub(/^-?[ \t]*["\047]?/, "", hd)
			}
			add(c2); i++; continue
		}
		if (c2 == "&&" || c2 == "||") { end_seg(c2); i++; continue }
		if (c == ";" || c == "&" || c == "(" || c == ")" ||
		    ((c == "{" || c == "}") && seg == "")) {
			end_seg(c); continue
		}
		add(c)
	}
	return 0
}

FNR == 1 { if (inbody) finish_body(); inbody = 0; hd = ""; cont = 0 }

hd != "" {
	l = $0
	if (hdtab) sub(/^\t+/, "", l)
	if (l == hd) hd = ""
	next
}

!inbody && (/^@test .*\{[ \t]*$/ || /^[A-Za-z_][A-Za-z0-9_]*\(\)[ \t]*\{[ \t]*$/) {
	inbody = 1; reset_body(); next
}

inbody && sp == 0 && !cont && /^\}[ \t]*$/ { finish_body(); next }

# A body that never closed: the scanner lost its quotes.
inbody && /^@test / {
	printf "%s:%d: cannot parse the body above\n", FILENAME, FNR
	bad = 1; inbody = 1; reset_body(); next
}

inbody {
	cont = scan($0)
	# A newline ends a command unless escaped or inside quotes.
	if (!cont && sp == 0 && seg !~ /\|[ \t]*$/)
		end_seg("nl")
	else if (!cont && (st[sp] == "S" || st[sp] == "D"))
		add("\n")
}

END { if (inbody) finish_body(); exit bad }
' "$@"
