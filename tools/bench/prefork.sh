#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# prefork.sh N K WORKER [ARGS...]: a prefork server in miniature.  It keeps
# K workers alive and starts a new one each time one exits, N workers in
# all, as servers that recycle their workers do (every worker is a fork and
# an exec).
n=$1 k=$2
shift 2
started=0
while [ $started -lt "$k" ] && [ $started -lt "$n" ]; do
	"$@" >/dev/null 2>&1 &
	started=$((started + 1))
done
while [ $started -lt "$n" ]; do
	wait -n
	"$@" >/dev/null 2>&1 &
	started=$((started + 1))
done
wait
