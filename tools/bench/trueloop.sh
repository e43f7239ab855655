#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# trueloop.sh N: a shell loop starting /bin/true N times (a fork and an
# exec each), what shell scripts and make do all day.
for ((i = 0; i < $1; i++)); do
	/bin/true
done
