#!/usr/bin/env bash
# Stand-in for the SLURM status command (workflow/profiles/slurm/status.py): prints running,
# success or failed for a job id printed by local_submit.sh.
set -euo pipefail
rc="${CROWDPRIV_LOCAL_CLUSTER:?}/$1.rc"
if [ ! -f "$rc" ]; then echo running
elif [ "$(cat "$rc")" = "0" ]; then echo success
else echo failed
fi
