"""A fourth paper needs only its own rule file: the registry drives summary.md and index.csv.

The toy paper below registers itself and writes one figure table and its claims; the shared
files (common.smk, summary.smk, scripts/summary.py) are included from the repository as they
are. Also checks that jobs run their numeric libraries single-threaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pandas as pd

TOY_SMK = '''
register_paper(
    "toy",
    title="Toy (Doe et al., 2030)",
    category="Toy",
    claims="results/toy/claims.csv",
    figures=[dict(label="Fig. 1", what="a toy figure", files=["results/toy/fig1.csv"])],
)


rule toy_fig1:
    output:
        "results/toy/fig1.csv",
    log:
        "results/logs/toy/fig1.log",
    localrule: True
    conda:
        CONDA_ENV
    script:
        "toy_fig1.py"


rule toy_claims:
    input:
        fig1=rules.toy_fig1.output[0],
    output:
        "results/toy/claims.csv",
    log:
        "results/logs/toy/claims.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        significance=config["claims"],
        figures=lambda w: [f["label"] for f in PAPERS["toy"]["figures"]],
    script:
        "toy_claims.py"
'''

TOY_FIG1 = '''
import os
import pandas as pd
from crowdpriv.runtime import write_csv
rows = [dict(rep=r, method=m, value=v + r, threads=os.environ.get("OPENBLAS_NUM_THREADS"))
        for r in range(6) for m, v in (("A", 1.0), ("B", 2.0))]
write_csv(pd.DataFrame(rows), snakemake.output[0])
'''

TOY_CLAIMS = '''
import pandas as pd
from crowdpriv.claims import Claim, evaluate, write_claims
from crowdpriv.significance import Significance, decide_every, paired


def a_beats_b(ctx):
    cells = paired(ctx.table("fig1"), [], across="method", value="value")
    margins = {label: tab["B"] - tab["A"] for label, tab in cells.items()}
    return decide_every(margins, ctx.significance, margin="value(B) - value(A)")


CLAIMS = [Claim("toy.a_beats_b", "A is lower than B (Fig. 1)", ("Fig. 1",), "every rep", a_beats_b)]
claims = evaluate(CLAIMS, {"fig1": pd.read_csv(snakemake.input.fig1)}, thresholds={},
                  significance=Significance.from_mapping(snakemake.params.significance),
                  figures=snakemake.params.figures)
write_claims(claims, snakemake.output[0])
'''


def test_a_fourth_paper_touches_only_its_own_files(root, tmp_path):
    rules = root / "workflow" / "rules"
    toy = tmp_path / "workflow" / "rules"  # where a paper's rule file lives in a clone
    toy.mkdir(parents=True)
    (toy / "toy.smk").write_text(TOY_SMK)
    (toy / "toy_fig1.py").write_text(TOY_FIG1)
    (toy / "toy_claims.py").write_text(TOY_CLAIMS)
    (tmp_path / "envs").mkdir()
    shutil.copy(root / "envs" / "crowdpriv.yaml", tmp_path / "envs")
    (tmp_path / "Snakefile").write_text(
        f'configfile: "{root}/config/config.yaml"\n\n\n'
        f'include: "{rules}/common.smk"\ninclude: "workflow/rules/toy.smk"\n'
        f'include: "{rules}/summary.smk"\n\n\n'
        "rule all:\n    default_target: True\n    input:\n        rules.summary.output,\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root / "scripts"), "OPENBLAS_NUM_THREADS": "4"}
    result = subprocess.run(
        [sys.executable, "-m", "snakemake", "-s", str(tmp_path / "Snakefile"), "-d",
         str(tmp_path), "--cores", "1"],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    summary = (tmp_path / "results/summary.md").read_text()
    assert "## Toy (Doe et al., 2030)" in summary
    assert "- **Fig. 1** a toy figure: 1 claim(s) of the paper: 1 holds." in summary
    assert "**Claims of the papers: 1 holds** (of 1)." in summary
    assert "LDP-sparse" not in summary and "PrisCrowd" not in summary
    index = pd.read_csv(tmp_path / "results/index.csv")
    assert index[["paper", "kind", "path"]].values.tolist() == [
        ["toy", "figure", "results/toy/fig1.csv"],
        ["toy", "claims", "results/toy/claims.csv"],
    ]
    claims = pd.read_csv(tmp_path / "results/toy/claims.csv")
    assert claims["status"].tolist() == ["holds"]
    threads = pd.read_csv(tmp_path / "results/toy/fig1.csv")["threads"]
    assert set(threads.astype(str)) == {"1"}  # set by common.smk, whatever the caller had
