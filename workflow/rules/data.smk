# Data: fetch raw files (mirror or download, sha256 always), preprocess each dataset into tidy
# claims/truth tables, and tabulate the datasets' statistics beside the papers'.


rule fetch_raw:
    output:
        "data/raw/{group}/{filename}",
    log:
        "results/logs/data/fetch/{group}/{filename}.log",
    wildcard_constraints:
        filename=".+",
    localrule: True
    conda:
        CONDA_ENV
    params:
        entry=raw_entry,
    script:
        "../../scripts/fetch_raw.py"


rule preprocess_population:
    input:
        unpack(population_inputs),
    output:
        claims=processed("population"),
        truth=processed("population", "truth"),
    log:
        "results/logs/data/preprocess/population.log",
    benchmark:
        "results/benchmarks/data/preprocess/population.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        raw_pins=raw_pins,
        cfg=config["datasets"]["population"],
    script:
        "../../scripts/preprocess_population.py"


rule preprocess_adultcontent:
    input:
        labels=raw_file("adultcontent", "labels.txt"),
        gold=raw_file("adultcontent", "gold.txt"),
        categories=raw_file("adultcontent", "categories.txt"),
    output:
        claims=processed("adultcontent"),
        truth=processed("adultcontent", "truth"),
    log:
        "results/logs/data/preprocess/adultcontent.log",
    benchmark:
        "results/benchmarks/data/preprocess/adultcontent.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        raw_pins=raw_pins,
        cfg=config["datasets"]["adultcontent"],
    script:
        "../../scripts/preprocess_adultcontent.py"


rule preprocess_web:
    input:
        mat=raw_file("web", "web_processed_data.mat"),
    output:
        claims=processed("web"),
        truth=processed("web", "truth"),
    log:
        "results/logs/data/preprocess/web.log",
    benchmark:
        "results/benchmarks/data/preprocess/web.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        raw_pins=raw_pins,
    script:
        "../../scripts/preprocess_web.py"


rule preprocess_stock_surrogate:
    input:
        gold=stock_gold_inputs,
        real_claims=stock_claims_inputs,
    output:
        claims=processed("stock_surrogate"),
        truth=processed("stock_surrogate", "truth"),
        workers=processed("stock_surrogate", "workers"),
    log:
        "results/logs/data/preprocess/stock_surrogate.log",
    benchmark:
        "results/benchmarks/data/preprocess/stock_surrogate.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        raw_pins=raw_pins,
        config=config_values("datasets.stock_surrogate"),
        seed=config["seed"],
    script:
        "../../scripts/preprocess_stock_surrogate.py"


rule preprocess_indoor_surrogate:
    output:
        claims=processed("indoor_surrogate"),
        truth=processed("indoor_surrogate", "truth"),
        workers=processed("indoor_surrogate", "workers"),
    log:
        "results/logs/data/preprocess/indoor_surrogate.log",
    benchmark:
        "results/benchmarks/data/preprocess/indoor_surrogate.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        config=config_values("datasets.indoor_surrogate"),
        seed=config["seed"],
    script:
        "../../scripts/preprocess_indoor_surrogate.py"


rule preprocess_answer_table:
    input:
        unpack(answer_table_inputs),
    output:
        claims=processed("{dataset}"),
        truth=processed("{dataset}", "truth"),
    log:
        "results/logs/data/preprocess/{dataset}.log",
    benchmark:
        "results/benchmarks/data/preprocess/{dataset}.tsv"
    wildcard_constraints:
        dataset="|".join(ANSWER_TABLE_DATASETS),
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        raw_pins=raw_pins,
        answer_type=answer_type_param,
    script:
        "../../scripts/preprocess_answer_table.py"


rule import_custom_dataset:
    input:
        unpack(custom_dataset_inputs),
    output:
        claims=processed("{dataset}"),
        truth=processed("{dataset}", "truth"),
    log:
        "results/logs/data/preprocess/{dataset}.log",
    wildcard_constraints:
        # only the user's datasets (a pattern that never matches when there are none)
        dataset="|".join(CUSTOM_DATASETS) or "(?!)",
    localrule: True
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    script:
        "../../scripts/import_custom_dataset.py"


rule datasets:
    input:
        claims=expand(processed("{dataset}"), dataset=STATS_DATASETS),
        truth=expand(processed("{dataset}", "truth"), dataset=STATS_DATASETS),
        paper=paper_values("dataset_stats.csv"),
    output:
        csv="results/datasets/stats.csv",
        md="results/datasets/stats.md",
    log:
        "results/logs/data/stats.log",
    localrule: True
    conda:
        CONDA_ENV
    params:
        datasets=STATS_DATASETS,
        answer_types=answer_types(),
        published=published_numbers(),
    script:
        "../../scripts/dataset_stats.py"
