#!/bin/bash
# recycler.sh GO N OUT TOOLS: a server that recycles N workers once the file GO
# exists; each does its work (forktree, 3 stats), exits and is reaped.
go=$1 n=$2 out=$3 tools=$4
while [ ! -e "$go" ]; do sleep 0.02; done
for ((i = 0; i < n; i++)); do
	"$tools/forktree" -D 0 -k 3 2>>"$out"
done
