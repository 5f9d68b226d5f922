# Shared definitions: config validation, wildcard constraints, helper functions (no rules here).
import copy
import os
import sys

from jsonschema.exceptions import best_match as jsonschema_best_match
from snakemake.utils import validate

validate(config, schema="../schemas/config.schema.yaml")
#: the same schema file (relative to this rule file, wherever the Snakefile including it lives)
CONFIG_SCHEMA = workflow.source_path("../schemas/config.schema.yaml")

sys.path.insert(0, os.path.join(workflow.basedir, "scripts"))
from crowdpriv.data import answer_type_of  # noqa: E402
from crowdpriv.jobs import ordered_like, select  # noqa: E402
from crowdpriv.jobserver import script_without_launcher  # noqa: E402
from crowdpriv.readings import parse_readings, reading_config  # noqa: E402
from crowdpriv.mechanisms import (
    get as get_mechanism,
    ids as mechanism_ids,
)  # noqa: E402
from crowdpriv.ldp_sparse import register_extra  # noqa: E402

#: The repository (this file is workflow/rules/common.smk in it); rule fetch_raw resolves a
#: relative mirror_dir from here.
REPOSITORY = os.path.normpath(
    os.path.join(workflow.current_basedir.get_path_or_uri(secret_free=True), "..", "..")
)


def normalise_config():
    """The config in the order of config/config.yaml, with the mirror folder relative to the
    repository.

    Snakemake builds the config from the command-line files first and merges the Snakefile's
    configfile into them, so a block's key order depends on which files were given; job params
    are compared by their repr, so the order is fixed here (crowdpriv.jobs.ordered_like). An
    absolute mirror_dir (what a Makefile or a test passes) becomes relative to the repository,
    so that results/run_config.yaml records no machine path and the same folder given either
    way is the same config (the fetch job resolves it from the repository root).
    """
    import yaml

    with open(os.path.join(REPOSITORY, "config", "config.yaml")) as handle:
        ordered = ordered_like(config, yaml.safe_load(handle))
    mirror = ordered.get("mirror_dir")
    if mirror and os.path.isabs(mirror):
        ordered["mirror_dir"] = os.path.relpath(mirror, REPOSITORY)
    config.clear()
    config.update(ordered)


normalise_config()

# Every job runs its BLAS/OpenMP libraries on one thread: parallelism comes from jobs, and no
# number may depend on --cores or on a library's thread count (it changes summation order).
# Jobs inherit this environment (locally and on a cluster, where the Snakefile is re-read).
os.environ.update(
    {
        name: "1"
        for name in (
            "OMP_NUM_THREADS",
            "OPENBLAS_NUM_THREADS",
            "MKL_NUM_THREADS",
            "BLIS_NUM_THREADS",
            "VECLIB_MAXIMUM_THREADS",
            "NUMEXPR_NUM_THREADS",
        )
    }
)

#: Zheng et al.'s truth-inference benchmark datasets, read from answer/truth tables by rule
#: preprocess_answer_table (config datasets.<name>: files, answer_type, published numbers).
ANSWER_TABLE_DATASETS = ["product", "dog", "emotion"]
#: Datasets the pipeline builds from the papers' data: data/processed/<dataset>/{claims,truth}.csv.
BUILTIN_DATASETS = [
    "population",
    "stock_surrogate",
    "indoor_surrogate",
    "web",
    "adultcontent",
    *ANSWER_TABLE_DATASETS,
]
#: The user's own datasets (config `custom_datasets`), imported by rule import_custom_dataset.
CUSTOM_DATASETS = list(config.get("custom_datasets", {}))
DATASETS = BUILTIN_DATASETS + CUSTOM_DATASETS
#: Whether local jobs are forked by the job server (config job_server; the Snakefile's onstart).
JOB_SERVER = str(config["job_server"]).lower() != "false"
# Every `script:` directive compiles to a call of `script(...)` in this namespace (Snakemake's
# snakemake.script.script): wrapped, a local job is forked by the job server at the request of
# Snakemake's own job thread, without a launcher process; without a server, Snakemake's runs it.
script = script_without_launcher(script)
#: Whether the inference benchmark runs (config benchmark_enabled; rules in benchmark.smk).
BENCHMARK_ENABLED = str(config["benchmark_enabled"]).lower() != "false"


def papers_datasets():
    """{config key: the datasets it names} for every paper setting that names datasets."""
    return {
        "priscrowd.datasets": config["priscrowd"]["datasets"],
        "pptd.fig6.dataset": [config["pptd"]["fig6"]["dataset"]],
        "pptd.fig7.dataset": [config["pptd"]["fig7"]["dataset"]],
        "ldp_sparse.fig5.datasets": config["ldp_sparse"]["fig5"]["datasets"],
        "ldp_sparse.fig1.datasets": config["ldp_sparse"]["fig1"]["datasets"],
        "ldp_sparse.table2.datasets": config["ldp_sparse"]["table2"]["datasets"],
        "ldp_sparse.release.datasets": config["ldp_sparse"]["release"]["datasets"],
    }


#: The datasets results/datasets/stats.* summarises (so fetches and builds): all of them,
#: except Zheng et al.'s answer tables when nothing uses them (the benchmark switched off and
#: no paper setting naming one).
STATS_DATASETS = [
    name
    for name in DATASETS
    if BENCHMARK_ENABLED
    or name not in ANSWER_TABLE_DATASETS
    or any(name in names for names in papers_datasets().values())
]


def check_dataset_names():
    """Every dataset a paper's config names must exist (built in or in custom_datasets)."""
    for key, names in papers_datasets().items():
        unknown = [name for name in names if name not in DATASETS]
        if unknown:
            raise ValueError(
                f"{key} names unknown dataset(s) {unknown}; known: {DATASETS} "
                "(add your own under custom_datasets)"
            )
    ldp = config["ldp_sparse"]
    register_extra(ldp["mechanisms"].get("extra"))
    known = mechanism_ids(part="sweep")
    for fig in ("fig2", "fig3", "fig4", "fig5"):
        unknown = [m for m in ldp[fig]["methods"] if not is_sweep_mechanism(m)]
        if unknown:
            raise ValueError(
                f"ldp_sparse.{fig}.methods names unknown mechanism(s) {unknown}; known: "
                f"{known} (register your own under ldp_sparse.mechanisms.extra)"
            )


def is_sweep_mechanism(name):
    """Whether a configured name (id, label or alias) is a mechanism an LDP-sparse sweep runs."""
    try:
        return "sweep" in get_mechanism(name).parts
    except ValueError:
        return False


def mechanism_labels(names):
    """The labels (the `method` column of the result files) of configured mechanisms."""
    return [get_mechanism(name).label for name in names]


check_dataset_names()
#: Environment shared by every rule.
CONDA_ENV = "../../envs/crowdpriv.yaml"


wildcard_constraints:
    dataset="|".join(DATASETS),
    group="|".join(config["raw"]),


def repo_path(path):
    """A config path: absolute as is, relative to the repository root (the Snakefile's folder)."""
    if not path or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(workflow.basedir, path))


def paper_values(name):
    """Path of one of the papers' printed-number CSVs (config `paper_values_dir`)."""
    return os.path.join(repo_path(config["paper_values_dir"]), name)


def raw_file(group, name):
    return f"data/raw/{group}/{name}"


def raw_entry(wildcards):
    """The pinned identity {url, sha256, size} of one raw file.

    Where the file is fetched from (mirror_dir, mirror_url) is read by the job from the config,
    not passed as a param: switching mirrors must not re-fetch (or lose) verified files.
    """
    entry = config["raw"][wildcards.group].get(wildcards.filename)
    if entry is None:
        raise ValueError(
            f"raw file {wildcards.group}/{wildcards.filename} is not listed under "
            f"raw.{wildcards.group} in config"
        )
    return {
        "url": entry.get("url", ""),
        "sha256": entry["sha256"],
        "size": entry.get("size"),
        "relative": f"{wildcards.group}/{wildcards.filename}",
    }


def raw_pins(wildcards, input):
    """{path: {sha256, size}} of a job's inputs under data/raw, re-verified before reading."""
    pins = {}
    for path in input:
        parts = str(path).split("/", 3)
        if parts[:2] == ["data", "raw"] and len(parts) == 4:
            entry = config["raw"][parts[2]][parts[3]]
            pins[str(path)] = {"sha256": entry["sha256"], "size": entry.get("size")}
    return pins


def config_values(*keys):
    """The config values a job outside the papers reads (dotted keys), in the config's shape:
    its ``params.config`` (crowdpriv.jobs.select; paper jobs use their paper's job_params).
    """
    return select(config, keys)


def custom_dataset_inputs(wildcards):
    entry = config["custom_datasets"][wildcards.dataset]
    inputs = {"claims": repo_path(entry["claims"])}
    if entry.get("truth"):
        inputs["truth"] = repo_path(entry["truth"])
    return inputs


def processed(dataset, table="claims"):
    """Path of a processed table of a dataset (claims, truth, or workers for surrogates)."""
    return f"data/processed/{dataset}/{table}.csv"


def population_inputs(wildcards):
    cfg = config["datasets"]["population"]
    claims = (
        cfg["raw_tuples_file"] if cfg["claims_from"] == "raw_tuples" else "pop_data.csv"
    )
    return {
        "claims": raw_file("population", claims),
        "truth": raw_file("population", "popAnswersOut.txt"),
    }


def answer_table_inputs(wildcards):
    """Raw answers and truth files of a benchmark dataset: its config block names
    each as <raw group>/<file>, pinned under raw (mirror: <mirror_dir>/<group>/<file>).
    """
    cfg = config["datasets"][wildcards.dataset]
    inputs = {}
    for kind in ("answers", "truth"):
        relative = cfg[f"{kind}_file"]
        group, _, name = relative.partition("/")
        if name not in config["raw"].get(group, {}):
            raise ValueError(
                f"datasets.{wildcards.dataset}.{kind}_file = {relative!r} is not listed "
                f"under raw (as raw.<group>.<file>)"
            )
        inputs[kind] = raw_file(group, name)
    return inputs


def answer_type_param(wildcards):
    """The job's declared answer type (crowdpriv.data.answer_type_of) as a plain dict."""
    return answer_type_of(config, wildcards.dataset).to_dict()


def answer_types():
    """{dataset: declared answer type as a dict} (crowdpriv.data.answer_type_of)."""
    return {
        name: answer_type_of(config, name).to_dict()
        for name in STATS_DATASETS
        if "answer_type" in config["datasets"].get(name, {})
    }


def published_numbers():
    """{dataset: its paper's numbers from config datasets.<name>.published}."""
    return {
        name: dict(config["datasets"][name]["published"])
        for name in STATS_DATASETS
        if "published" in config["datasets"].get(name, {})
    }


def stock_gold_inputs(wildcards):
    """Gold files of the configured days and of each day's previous trading day (stale values)."""
    available = sorted(
        name for name in config["raw"]["stock"] if name.startswith("random_truth/")
    )
    by_day = {name.split("stock-")[1][:10]: name for name in available}
    days = sorted(by_day)
    wanted = set()
    for day in config["datasets"]["stock_surrogate"]["gold_days"]:
        if day not in by_day:
            raise ValueError(
                f"datasets.stock_surrogate.gold_days: no gold file for day {day!r} under "
                f"raw.stock (available: {', '.join(days)})"
            )
        wanted.add(by_day[day])
        position = days.index(day)
        if position > 0:
            wanted.add(by_day[days[position - 1]])
    return [raw_file("stock", name) for name in sorted(wanted)]


def stock_claims_inputs(wildcards):
    cfg = config["datasets"]["stock_surrogate"]
    if cfg["claims_from"] != "real_claims":
        return []
    if not cfg["real_claims_files"]:
        raise ValueError(
            "datasets.stock_surrogate.claims_from is 'real_claims' but real_claims_files is empty"
        )
    return [repo_path(p) for p in cfg["real_claims_files"]]


# --- PPTD (workflow/rules/pptd.smk) ---


def pptd_indoor_input(fig, table):
    return processed(config["pptd"][fig]["dataset"], table)


# --- PrisCrowd (workflow/rules/priscrowd.smk) ---


def pris_run(table):
    return expand(
        "results/priscrowd/runs/{dataset}/{table}.csv",
        dataset=config["priscrowd"]["datasets"],
        table=table,
    )


def pris_simulated(table):
    return expand(
        "results/priscrowd/runs/simulated/p{p}/{table}.csv",
        p=config["priscrowd"]["table2"]["p"],
        table=table,
    )


def pris_figure(name, subcategory):
    """PNG (in the report, under the paper's category) and SVG of a PrisCrowd figure."""
    return {
        "png": paper_report(
            "priscrowd",
            f"results/priscrowd/{name}.png",
            caption=f"../report/priscrowd/{name}.rst",
            subcategory=subcategory,
        ),
        "svg": f"results/priscrowd/{name}.svg",
    }


# --- Paper registry: each paper registers itself from its own rule file ---

#: Papers by key, in registration order. Filled by register_paper() in each
#: workflow/rules/<paper>.smk; rule summary, the report categories and results/index.csv loop
#: over it, so adding a paper touches only its own files, the Snakefile include and `all`.
PAPERS = {}


def register_paper(
    key,
    *,
    title,
    category,
    figures,
    claims,
    stats_paper=None,
    summary_tables=(),
    readings=(),
    privacy_claims=(),
    releases=(),
):
    """Register a paper's artefacts.

    figures: [{"label": "Fig. 2", "what": "...", "files": [...]}, ...] in the paper's order
    (labels are what the paper's claims name in their `figure` column); claims: path of its
    claims.csv; stats_paper: its name in results/datasets/stats.csv (column `paper`), if it
    uses datasets; summary_tables: [{"caption", "csv", optional "keys" (pivot ours beside the
    paper with crowdpriv.summary.side_by_side; "ours" and "ratio": which columns), "where"
    ({column: value} row filter), "columns", "note" (a sentence under the caption)}];
    readings, privacy_claims, releases: the paper's readings, privacy claims and private
    releases (readings.smk, privacy_audit.smk, release.smk add to them).
    """
    if key in PAPERS:
        raise ValueError(f"paper {key!r} is registered twice")
    PAPERS[key] = dict(
        key=key,
        title=title,
        category=category,
        figures=[dict(f) for f in figures],
        claims=claims,
        stats_paper=stats_paper,
        summary_tables=[dict(t) for t in summary_tables],
        readings=list(readings),
        privacy_claims=list(privacy_claims),
        releases=list(releases),
    )


def paper_report(key, path, *, caption, subcategory, **kwargs):
    """report() of one of a paper's artefacts, filed under the paper's registered category."""
    return report(
        path,
        caption=caption,
        category=PAPERS[key]["category"],
        subcategory=subcategory,
        **kwargs,
    )


def registry_files(paper):
    """Every file the registry lists for a paper (figures, tables, claims, later slots)."""
    files = [f for fig in paper["figures"] for f in fig["files"]]
    files += [t["csv"] for t in paper["summary_tables"]]
    files += [paper["claims"], *paper["readings"], *paper["privacy_claims"]]
    files += paper["releases"]
    return list(dict.fromkeys(files))


def summary_inputs(wildcards):
    """Inputs of the summary: every registered file, plus the dataset statistics if used."""
    inputs = {"files": [f for p in PAPERS.values() for f in registry_files(p)]}
    if any(p["stats_paper"] for p in PAPERS.values()):
        inputs["stats"] = "results/datasets/stats.csv"
    return inputs


# --- Readings (crowdpriv.readings): each paper's named alternatives to its default ---


def paper_readings(paper):
    """The paper's readings, default first ([] when readings_enabled is false)."""
    block = config[paper].get("readings")
    if str(config.get("readings_enabled", True)).lower() == "false" or not block:
        return []
    return parse_readings(block, where=f"{paper}.readings")


def reading_config_validator():
    """The config schema as a jsonschema validator that fills in the schema's defaults, as
    snakemake.utils.validate does; loaded once (with libyaml) for every reading's config:
    snakemake's validate reloads the schema through its pure-Python YAML reader at each call,
    about 0.4 s, once per reading in every Snakemake start."""
    import jsonschema
    import yaml

    with open(CONFIG_SCHEMA) as fh:
        schema = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    base = jsonschema.Draft202012Validator
    check_properties = base.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, subschema):
        for name, prop in properties.items():
            if "default" in prop:
                instance.setdefault(name, prop["default"])
        yield from check_properties(validator, properties, instance, subschema)

    return jsonschema.validators.extend(base, {"properties": set_defaults})(schema)


def check_config_up_front():
    """Every check on config values, before any job and whatever the target: the schema on
    each reading's config (an override is validated as the setting it replaces, and may only
    name existing keys), then the checks across keys and the core's own validation
    (crowdpriv.config_checks) on the config and on every reading's config, and the data
    rules' own checks of the stock gold days and claim files. One error lists every problem,
    each with its key path and value."""
    from crowdpriv.config_checks import config_problems

    problems = config_problems(config, root=workflow.basedir)
    for check in (stock_gold_inputs, stock_claims_inputs):
        try:
            check(None)
        except ValueError as err:
            problems.append(str(err))
    validator = None
    for paper in ("ldp_sparse", "pptd", "priscrowd"):
        for reading in paper_readings(paper)[1:]:
            where = f"{paper}.readings.alternatives.{reading.name}"
            merged = copy.deepcopy(reading_config(config, paper, reading))
            validator = validator or reading_config_validator()
            error = jsonschema_best_match(validator.iter_errors(merged))
            if error is not None:
                at = ".".join(str(key) for key in error.absolute_path) or "(top level)"
                raise ValueError(
                    f"{where}: the overridden config is invalid at {at}: {error.message}"
                )
            problems += [
                f"{where} (this reading's config): {problem}"
                for problem in config_problems(merged, files=False)
                if problem not in problems
            ]
    if problems:
        raise ValueError(
            "the config has "
            + (f"{len(problems)} problems" if len(problems) > 1 else "a problem")
            + " (checked before any job runs):\n  "
            + "\n  ".join(problems)
        )


check_config_up_front()


def reading_names(paper):
    return [r.name for r in paper_readings(paper)[1:]]


def rerun_reading_names(paper):
    """The readings of a paper that have a re-run job (crowdpriv.readings.has_rerun): not
    those whose tables follow from the default run's own columns (the matrix selects them).
    """
    import importlib

    from crowdpriv.readings import has_rerun

    core = importlib.import_module(f"crowdpriv.{paper}")
    return [r.name for r in paper_readings(paper)[1:] if has_rerun(core, r)]


def reading_spec(paper, name):
    """A reading as a plain dict (a job parameter: editing it re-runs that reading only)."""
    for reading in paper_readings(paper):
        if reading.name == name:
            return dict(
                name=reading.name,
                axis=reading.axis,
                why=reading.why,
                override=dict(reading.override),
                data=dict(reading.data),
                methods=None if reading.methods is None else list(reading.methods),
            )
    raise ValueError(f"{paper} has no reading {name!r}")


def readings_outputs(paper, out):
    """The registry's readings files of a paper (none when readings are off)."""
    if not paper_readings(paper):
        return []
    return [f"{out}/readings.csv", f"{out}/readings.md"]


#: Papers whose readings run, by key: the claims' tables (name -> default files), the datasets a
#: re-run may read, the surrogates a reading may regenerate and the claims' keyword arguments.
#: Filled by register_readings() in each paper's rule file; rules in readings.smk loop over it.
READINGS = {}


def register_readings(key, *, tables, datasets, claims_kwargs, surrogates=()):
    """Register what the generic readings rules need for one paper (nothing when its
    readings are off)."""
    if not paper_readings(key):
        return
    READINGS[key] = dict(
        tables={
            name: list(paths) if not isinstance(paths, str) else paths
            for name, paths in tables.items()
        },
        datasets=list(dict.fromkeys(datasets)),
        surrogates=list(surrogates),
        claims_kwargs=dict(claims_kwargs),
    )


def reading_block(paper, name):
    """The keys of a paper's block that one reading's re-run job reads: those of the tables it
    re-runs (crowdpriv.readings.rerun_keys over crowdpriv.<paper>.TABLE_KEYS), so that adding a
    point or editing a claim threshold re-runs only the readings whose tables read it.
    """
    import importlib

    from crowdpriv.readings import rerun_keys

    core = importlib.import_module(f"crowdpriv.{paper}")
    reading = next(r for r in paper_readings(paper) if r.name == name)
    keys = rerun_keys(
        reading,
        core.TABLE_KEYS,
        getattr(core, "DERIVED_KEYS", None),
        config[paper]["readings"].get("not_rerun", []),
    )
    return select(config[paper], keys)


def reading_thresholds(paper):
    """Per reading, what the paper's claims read from its block under that reading
    (crowdpriv.<paper>.claims_thresholds of the reading's config)."""
    import importlib

    core = importlib.import_module(f"crowdpriv.{paper}")
    return {
        reading.name: core.claims_thresholds(
            reading_config(config, paper, reading)[paper]
        )
        for reading in paper_readings(paper)[1:]
    }


def reading_wildcards():
    """Every registered paper's readings with a re-run job, as a wildcard pattern."""
    names = sorted({name for paper in READINGS for name in rerun_reading_names(paper)})
    return "|".join(names) or "no-readings"


def register_privacy_audit(papers, out):
    """Attach the privacy audit to each paper's registry entry: a "Privacy audit" figure and
    its privacy claims (read by the summary beside claims.csv); nothing when it is off.
    """
    if str(config.get("privacy_audit", {}).get("enabled", True)).lower() == "false":
        return
    for key in papers:
        PAPERS[key]["figures"].append(
            dict(
                label="Privacy audit",
                what="claimed ε beside the audit's lower bound and the exact ε",
                files=[f"{out}/{key}.png"],
            )
        )
        PAPERS[key]["privacy_claims"].append(f"{out}/{key}_claims.csv")


# --- HTML report: every registered table as a page (rule report_pages) ---


def report_page_sources():
    """results/report/<...>.html -> (source table, report category, title): every table the
    registry lists, as an HTML page the report shows inline (it only links CSV/Markdown).
    Each page's caption: workflow/report/<same name>.rst if it exists, else table_page.rst.
    """
    pages = {
        "results/report/summary.html": ("results/summary.md", "Summary", "Summary")
    }
    if any(p["stats_paper"] for p in PAPERS.values()):
        pages["results/report/datasets/stats.html"] = (
            "results/datasets/stats.md",
            "Datasets",
            "Dataset statistics",
        )
    for paper in PAPERS.values():
        tables = [(t["csv"], t["caption"]) for t in paper["summary_tables"]]
        tables += [(paper["claims"], "Claims")]
        tables += [(f, "Readings") for f in paper["readings"] if f.endswith(".md")]
        tables += [(f, "Privacy claims") for f in paper["privacy_claims"]]
        tables += [
            (f, fig["label"])
            for fig in paper["figures"]
            for f in fig["files"]
            if f.endswith(".md")
        ]
        for source, title in tables:
            name = os.path.splitext(source[len("results/") :])[0]
            pages.setdefault(
                f"results/report/{name}.html", (source, paper["category"], title)
            )
    return pages


def table_caption(page):
    """Caption of a table page: the table's own caption file, else the generic one."""
    name = os.path.splitext(page[len("results/report/") :])[0]
    own = os.path.join(workflow.basedir, "workflow", "report", f"{name}.rst")
    return (
        f"../report/{name}.rst" if os.path.exists(own) else "../report/table_page.rst"
    )
