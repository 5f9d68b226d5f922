#!/usr/bin/env bash
# Stand-in for sbatch in the cluster test: runs the job script (last argument) in the
# background and prints a job id; the exit code lands in $CROWDPRIV_LOCAL_CLUSTER/<id>.rc.
set -euo pipefail
jobscript="${!#}"
queue="${CROWDPRIV_LOCAL_CLUSTER:?set CROWDPRIV_LOCAL_CLUSTER to a folder}"
mkdir -p "$queue"
id="local-$(date +%s%N)-$RANDOM"
(bash "$jobscript" > "$queue/$id.out" 2>&1; echo $? > "$queue/$id.rc") > /dev/null 2>&1 &
echo "$id"
