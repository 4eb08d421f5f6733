"""modelcalc from Python: the performance arithmetic of transformer models, computed by modelcalc's C++ core.

    import modelcalc
    r = modelcalc.size("llama-3.1-8b", "h100", context=8192, batch=32)
    r.weight_bytes, r.tokens_per_s_aggregate          # numbers, in base units (bytes, tokens/s)
    r.decode_step.seconds, r.params.total             # the sections of `modelcalc size --json`
    r.to_dict()                                       # that document, key for key
    cols = modelcalc.sweep(["llama-3.1-8b", "mixtral-8x7b-v0.1"], ["h100", "mi300x"], batch=range(1, 65))
    cols.tokens_per_s_aggregate                       # a NumPy array; cols.to_pandas() a DataFrame
    p = modelcalc.plan("llama-3.1-8b", isl=2048, osl=512, qps=20, tpot=0.05)   # 0.05 s = 50 ms
    from modelcalc import lab                         # the lab's functions under the lab's names

Models and GPUs: a preset or catalog name, or modelcalc.Model(...) / modelcalc.Gpu(...) (a config.json, a
hand-typed shape, a modified GPU). Numbers are numbers in base units (counts, bytes, seconds, B/s, FLOP/s);
strings are read as the CLI reads them ("8K", "50ms", "80GB", "3.35TB/s"); lists, ranges and NumPy arrays
are accepted wherever a command takes a list.

One engine: each function runs the analyses the CLI command runs (src/cli/runs.h) and its result's
to_dict() is built by the same report code as the CLI's --json. Bad input raises InputError (a ValueError)
with the CLI's one line, naming the keyword you passed. The heavy calls (size, kv_budget, plan, train_plan,
diagnose, deployment, sweep) release the GIL. modelcalc.cli runs any command by its flags.
"""

import os

from . import _modelcalc
from . import cli
from . import lab
from ._results import Columns, Doc, attach_document_access

__all__ = [
    "InputError", "Model", "Gpu", "size", "kv_budget", "plan", "train_plan", "diagnose", "deployment", "sweep",
    "gpus", "models", "sweep_columns", "Columns", "Doc", "SizeResult", "KvBudgetResult", "PlanResult",
    "TrainPlanResult", "DiagnoseResult", "Deployment", "DeploymentPoint", "lab", "cli", "run", "text", "commands",
]

InputError = _modelcalc.InputError
Model = _modelcalc.Model
Gpu = _modelcalc.Gpu
SizeResult = _modelcalc.SizeResult
KvBudgetResult = _modelcalc.KvBudgetResult
PlanResult = _modelcalc.PlanResult
TrainPlanResult = _modelcalc.TrainPlanResult
DiagnoseResult = _modelcalc.DiagnoseResult
Deployment = _modelcalc.Deployment
DeploymentPoint = _modelcalc.DeploymentPoint
run = cli.run
text = cli.text
commands = cli.commands

for _cls in (SizeResult, KvBudgetResult, PlanResult, TrainPlanResult, DiagnoseResult):
    attach_document_access(_cls)
del _cls


def _fields(keywords, *drop):
    """A call's keywords (its locals()) as the request fields the native function reads: every keyword given
    (None and False are "not given"), by the field's name; the positional model, gpu and `drop` left out."""
    skip = {"model", "gpu", *drop}
    return {k: os.fspath(v) if isinstance(v, os.PathLike) else v
            for k, v in keywords.items() if k not in skip and v is not None and v is not False}


def size(model, gpu=None, *, context=None, seq=None, batch=1, dtype=None, kv_dtype=None, gpus=None, tp=None,
         pp=None, ep=None, dp=None, prompt=None, compute_dtype=None, reserve=None, train_tokens=None, engine=None,
         gpu_memory_utilization=None, kv_cache_free_gpu_mem_fraction=None, mem_fraction_static=None, swa_full_tokens_ratio=None,
         max_model_len=None, max_num_batched_tokens=None, max_num_seqs=None, block_size=None,
         allow_long_max_model_len=False, dp_attention=False, expert_imbalance=None, redundant_experts=None,
         two_batch_overlap=False, spec_tokens=None, spec_acceptance=None, spec_method=None, draft_model=None,
         prefix_hit=None, prefix_tokens=None, profile=None):
    """Drill 1 end to end (`modelcalc size`): parameters, weight memory, FLOPs, KV cache, the decode ceiling and
    the regime, and beside them the deployment engine's modeled figures.

    model: a preset name or a Model. gpu: a catalog name or a Gpu (None: the sections that need hardware are
    left out). context: tokens T per sequence (default: the model's max positions, else 4096); seq= is the
    same keyword under the CLI's other spelling (as in every function here). batch:
    concurrent sequences B. dtype: the weights' (fp32, fp16, bf16, fp8, int8, int4, nvfp4, mxfp4; default a
    quantized checkpoint's own, else fp16); kv_dtype: the cache's (default the KV dtype a checkpoint states,
    else 16-bit: bf16, or fp16/fp32 with such weights). gpus: GPUs pooled by the textbook
    sections and split tp x pp x dp by the engine (default tp x pp x dp, else 1); ep: expert-parallel ranks
    inside the TP group. prompt: prefill tokens (default the context). compute_dtype: the dtype the matmuls
    run in (default: fp8 weights -> fp8, int8/int4 -> bf16, else the weights'). reserve: fraction of memory
    kept back (default: none for the ceiling, the driver-exposed memory less the weights; given, it also sets
    the engine's fraction, 1 - reserve, unless an engine keyword does). train_tokens: D for 6 N D (a count, or
    "15T"). A prompt shorter than the context is a request shape: the serving section's steady state.
    The prediction beside the ceiling (the `predicted` siblings of memory_per_gpu, decode_step and prefill, and
    the engine section): engine (trtllm, vllm or sglang; default: the GPU vendor's, trtllm on NVIDIA, vllm on
    AMD, none on TPU and Gaudi, whose results hold the ceiling alone) and its flags as the CLI spells them:
    gpu_memory_utilization (vllm), kv_cache_free_gpu_mem_fraction (trtllm), mem_fraction_static and
    swa_full_tokens_ratio (sglang), fractions in (0, 1]; max_model_len, max_num_batched_tokens, max_num_seqs
    (tokens, sequences); block_size (tokens per KV block); allow_long_max_model_len.
    The serving layouts as the CLI's flags (docs/serving-layouts.md): dp_attention (gpus is then the replica,
    tp the ranks inside each attention group, ep default all of it), expert_imbalance (1 to 64),
    redundant_experts (EPLB slots), two_batch_overlap; speculative decoding: spec_tokens K, spec_acceptance A,
    spec_method ("mtp" or "draft"), draft_model (a preset or a config.json path); prefix_hit (share of each
    prompt cached, [0, 1)), prefix_tokens (a shared prefix).
    profile: a time-parameter file as `modelcalc calibrate --fit --data FILE --write FILE` writes it (a path);
    every prediction comes from it instead of the compiled-in profile, and the document names it
    (engine.profile). Read when the call is made: a bad file is an InputError naming profile.

    Returns a SizeResult: every sweep column as an attribute (weight_bytes in bytes, tokens_per_s_aggregate
    in tokens/s, ...: modelcalc.sweep_columns() lists them), the document's sections as attributes
    (r.params.total, r.decode_step.seconds), to_dict() = `modelcalc size --json`, text(), explain(), strings()
    (each figure as the text prints it: `--json --strings`).
    """
    return _modelcalc._size(model, gpu, _fields(locals()))


def kv_budget(model, gpu=None, *, budget=None, context=None, seq=None, gpus=None, reserve=None, dtype=None,
              kv_dtype=None, workspace=None, mean_len=None, block_size=None, batch=1, prompt=None, tp=None, pp=None,
              ep=None, dp=None, compute_dtype=None, engine=None, gpu_memory_utilization=None,
              kv_cache_free_gpu_mem_fraction=None, mem_fraction_static=None, swa_full_tokens_ratio=None, max_model_len=None,
              max_num_batched_tokens=None, max_num_seqs=None, allow_long_max_model_len=False, dp_attention=False,
              expert_imbalance=None, redundant_experts=None, two_batch_overlap=False, spec_tokens=None,
              spec_acceptance=None, spec_method=None, draft_model=None, prefix_hit=None, prefix_tokens=None, profile=None):
    """Drill 2 (`modelcalc kv-budget`): an HBM budget turned into concurrent sequences, MHA against the
    model's attention, and the changes that double it (ranked by effort).

    budget: the KV budget in bytes, given directly (then gpu may be None). context: tokens reserved per
    sequence (default 8192). gpus: the tensor-parallel group sharing weights and KV (default 1). reserve:
    fraction of capacity kept back (default 10 % for the budget). workspace: the activation allowance in bytes
    (default 2048 x (FFN width + vocab) x 2 B).
    mean_len: mean sequence length for the paged-allocation proposal (default context / 2); block_size: the
    paged block in tokens, for the proposal and the engine (default 16; the engine's own when not given).
    batch, prompt and the split: the modeled deployment's (as size); the engine and layout keywords as size's.

    Returns a KvBudgetResult: max_sequences, budget_bytes, kv_bytes_per_sequence (ints), the document's
    sections as attributes, to_dict() = `modelcalc kv-budget --json`, text(), explain().
    """
    return _modelcalc._kv_budget(model, gpu, _fields(locals()))


def _price_text(price):
    if isinstance(price, dict):
        return ",".join(f"{k.key if isinstance(k, Gpu) else k}={v!r}" for k, v in price.items())
    return price


def plan(model, *, isl, osl, qps=None, rate=None, concurrency=None, ttft=None, tpot=None,
         tokens_per_s_per_user=None, gpu=None, max_gpus=64, dtype=None, kv_dtype=None, batch=None, max_pp=8,
         price=None, efficiency=1.0, top=10, frontier=False, rank_by=None, engine=None, gpu_memory_utilization=None,
         kv_cache_free_gpu_mem_fraction=None, mem_fraction_static=None, swa_full_tokens_ratio=None, max_model_len=None,
         max_num_batched_tokens=None, max_num_seqs=None, block_size=None, allow_long_max_model_len=False,
         disaggregated=False, kv_transfer_overlap=False, expert_imbalance=None, two_batch_overlap=False,
         spec_tokens=None, spec_acceptance=None, spec_method=None, draft_model=None, prefix_hit=None,
         prefix_tokens=None, ep=None, profile=None, compare=None, length_dist=None):
    """The cheapest deployment meeting latency targets at a load (`modelcalc plan`), searched over GPU kinds,
    TP x PP x EP splits, dtypes and batch sizes on the deployment engine.

    isl, osl: input and output tokens per request. The load, at most one of: qps (requests/s), rate (output
    tokens/s), concurrency (sequences). ttft, tpot: targets in seconds (0.05 = 50 ms; or "50ms");
    tokens_per_s_per_user: instead of tpot (= 1 / tpot). gpu: kinds to search, catalog names or Gpu
    objects (default every catalog GPU with a price). max_gpus: in total over all replicas. dtype, kv_dtype:
    the dtypes searched (default a quantized checkpoint's own and its stated KV dtype, else bf16 and fp8
    weights, and a bf16 cache with fp8 on GPUs with an fp8 peak). batch: batch sizes searched
    (default 1, 2, 4, ..., 65536 and the largest that fits). max_pp: most pipeline stages. price: USD per
    GPU-hour overrides, {"h100": 2.49} (default data/prices.tsv). efficiency: the fraction of the ranked
    figures reached on top of the model, in (0, 1]. top: configurations listed. frontier: also the Pareto
    table in text() (the document always holds frontier.predicted and frontier.ceiling). compare: published
    runs in the shared schema beside the frontier, a TSV path or "shared" (the compiled-in ones): each a
    measured point in frontier.measured with its prediction at the same configuration and load. length_dist:
    "fixed" (default) or "uniform-0.8" (InferenceX's lengths, uniform in [0.8 L, L], served at 0.9 L). rank_by: "predicted" (default) or "ceiling". The engine keywords as size's.
    disaggregated: search prefill and decode pools instead (x prefill per y decode replicas; the document is
    `plan --disaggregated --json`'s, the best aggregated plan beside it); kv_transfer_overlap: its KV streamed
    behind the prefill. The layout keywords plan applies to every candidate, as size's (it searches
    DP attention itself).

    Returns a PlanResult: feasible (False: nothing meets the targets, the document lists the closest misses,
    as the CLI does with exit status 1), the document's sections as attributes, to_dict() = `modelcalc plan
    --json`, text(), explain().
    """
    fields = _fields(locals())
    if gpu is not None:
        fields["gpu"] = gpu
    if price is not None:
        fields["price"] = _price_text(price)
    return _modelcalc._plan(model, fields)


def train_plan(model, *, tokens, days, gpu=None, price=None, max_gpus=4096, seq=4096, micro_batch=(1, 2, 4, 8),
               global_batch=None, max_batch_tokens=None, max_tp=8, max_pp=16, max_ep=64, optimizer="adamw",
               bf16_grads=False, flash=True, rank_by="cost", top=10):
    """The cheapest (or fastest) GPU kind, whole-node count and layout (TP x PP x DP x EP, ZeRO, recomputation,
    micro-batch, global batch) that trains `model` on `tokens` within `days` (`modelcalc train-plan`), every
    layout evaluated by the training engine.

    tokens: training tokens D (a count or "15T"). days: the deadline. gpu, price: as plan. max_gpus: most GPUs
    in the run (whole nodes within it). seq: training sequence length in tokens. micro_batch: the micro-batch
    sizes searched (a list, or "1,2,4,8"). global_batch: sequences per optimizer step, exactly (default:
    searched up to max_batch_tokens, 4,194,304 tokens). max_tp, max_pp, max_ep: largest splits searched.
    optimizer: adamw (mixed precision), adamw-fp32, sgd, adam8bit. bf16_grads: 16-bit gradients (default fp32,
    as Megatron keeps them). flash: FlashAttention (False: eager attention, s x s scores kept). rank_by: "cost"
    or "time". top: layouts listed.

    Returns a TrainPlanResult: feasible (False: nothing meets the deadline; the document has each GPU kind's
    fastest miss, as the CLI prints it with exit status 1), the document's sections as attributes,
    to_dict() = `modelcalc train-plan --json`, text(), explain(), strings().
    """
    return _modelcalc._train_plan(model, tokens, days, gpu, _price_text(price), max_gpus, seq, micro_batch,
                                  global_batch, max_batch_tokens, max_tp, max_pp, max_ep, optimizer, bf16_grads,
                                  flash, rank_by, top)


def diagnose(evidence=None, *, model=None, gpu=None, phase=None, params=None, layers=None, hidden=None, heads=None,
             kv_heads=None, head_dim=None, dtype=None, gpus=None, batch=None, context=None, seq=None, prompt=None,
             tokens_per_s=None, aggregate_tokens_per_s=None, ttft=None, itl=None, flop_util=None, bw_util=None,
             kernels_per_step=None, kernel_us=None, gap_us=None, peak_transient=None, engine=None,
             gpu_memory_utilization=None, kv_cache_free_gpu_mem_fraction=None, mem_fraction_static=None, swa_full_tokens_ratio=None,
             max_model_len=None, max_num_batched_tokens=None, max_num_seqs=None, block_size=None,
             allow_long_max_model_len=False, reserve=None, tp=None, pp=None, ep=None, dp=None, compute_dtype=None, kv_dtype=None,
             dp_attention=False, redundant_experts=None, expert_imbalance=None, two_batch_overlap=False,
             spec_tokens=None, spec_acceptance=None, spec_method=None, draft_model=None, prefix_hit=None,
             prefix_tokens=None, profile=None):
    """Drill 3 (`modelcalc diagnose`): evidence in, the regime, the numbers that settle it, fixes, what to
    reject and what to measure first.

    evidence: a JSON file's path, or the same as a dict (tests/evidence/case_a.json shows the schema);
    keywords override it. model: a preset or Model (the whole shape), or layers/hidden/heads/kv_heads/
    head_dim for shape facts; params: total parameters. gpu: a catalog name or Gpu. phase: decode, prefill
    or training (default inferred). tokens_per_s: measured decode tokens/s per sequence;
    aggregate_tokens_per_s: over all sequences. ttft, itl: seconds (or "80ms"). flop_util, bw_util:
    fractions (0.61 or "61%"). kernels_per_step: from a timeline. kernel_us, gap_us: (lo, hi) microseconds
    or "6-30". peak_transient: bytes above the weights. The engine keywords (the prediction beside the modeled
    ceiling) as size's.

    Returns a DiagnoseResult: regime, confirmed, the document's sections as attributes, to_dict() =
    `modelcalc diagnose --json`, text(), explain().
    """
    if evidence is not None and not isinstance(evidence, dict):
        evidence = str(evidence)
    fields = _fields(locals(), "evidence")
    if model is not None:
        fields["model"] = model
    if gpu is not None:
        fields["gpu"] = gpu
    return _modelcalc._diagnose(evidence, fields)


def deployment(model, gpu, *, context=None, seq=None, batch=1, prompt=None, gpus=None, tp=None, pp=None, ep=None,
               dp=None, dtype=None, compute_dtype=None, kv_dtype=None, reserve=None, workspace=None, engine=None,
               gpu_memory_utilization=None, kv_cache_free_gpu_mem_fraction=None, mem_fraction_static=None, swa_full_tokens_ratio=None,
               max_model_len=None, max_num_batched_tokens=None, max_num_seqs=None, block_size=None,
               allow_long_max_model_len=False, profile=None):
    """The deployment engine: one model on GPUs of one kind split tp x pp x ep x dp, serving `batch`
    sequences of `context` tokens (the modeled half of size, with size's defaults).

    workspace: the activation allowance per GPU in bytes (default none for the ceiling). The others, and the
    engine keywords, as size's.

    Returns a Deployment: memory (per GPU, bytes), decode (the step: seconds, tokens/s, bytes, FLOP, regime),
    prefill (TTFT), compute_bound_batch, evaluate(batch=, context=, prompt=) for any other workload (the
    engine's hot path), and to_dict() = the deployment sections of `size --json` (with their `predicted`
    siblings and the engine section).
    """
    return _modelcalc._deployment(model, gpu, _fields(locals()))


def sweep(model, gpu, *, context=None, seq=None, batch=1, dtype=None, kv_dtype=None, fields=None, on_chunk=None,
          chunk_rows=1 << 20, engine=None, gpu_memory_utilization=None, kv_cache_free_gpu_mem_fraction=None,
          mem_fraction_static=None, swa_full_tokens_ratio=None, max_model_len=None, max_num_batched_tokens=None, max_num_seqs=None,
          block_size=None, allow_long_max_model_len=False, gpus=None, tp=None, pp=None, ep=None, dp=None,
          dp_attention=False, redundant_experts=None, expert_imbalance=None, two_batch_overlap=False,
          spec_tokens=None, spec_acceptance=None, spec_method=None, draft_model=None, prefix_hit=None,
          prefix_tokens=None, profile=None):
    """`size` over every combination of the lists (`modelcalc sweep`), as columns.

    model: models (names or Models), gpu: GPUs (names or Gpus), context: tokens (default each model's max
    positions), batch: sequences, dtype, kv_dtype: dtypes (default a 16-bit cache per row). Each is one value
    or a list, range or NumPy array ("1:64" and "1k:128k:x2" as the CLI reads them). Rows go models
    outermost, then gpu, context, batch, dtype, kv_dtype innermost (dtype default: the models' checkpoint
    dtype when they agree on one, else fp16). fields: the columns (default the CLI's
    default columns; modelcalc.sweep_columns() lists all, "all" takes every one). The engine keywords (the
    predicted_* columns' profile) as size's. gpus, tp, pp, ep, dp: the split, each one value or a list swept
    like the others; dp_attention, redundant_experts, expert_imbalance, two_batch_overlap, the speculative and
    prefix keywords as size's.

    Returns Columns (NumPy arrays when NumPy is installed; to_pandas() with pandas), filled by the core's
    sweep with the GIL released: 8 B a number, 2 B a text value, nothing per row in Python. With on_chunk,
    calls on_chunk(Columns) for every chunk_rows rows instead (memory stays one chunk) and returns the row
    count.
    """
    if fields == "all":
        fields = [name for name, _, _, _ in _modelcalc._sweep_columns_help()]
    if fields is not None and not isinstance(fields, str):
        fields = ",".join(str(f) for f in fields)
    request = _fields(locals(), "on_chunk", "chunk_rows")
    if fields is not None:
        request["fields"] = fields
    if on_chunk is None:
        rows, raw = _modelcalc._sweep(model, gpu, None, None, request)
        return Columns(raw)
    return _modelcalc._sweep(model, gpu, chunk_rows, lambda raw: on_chunk(Columns(raw)), request)


def sweep_columns():
    """Every sweep column as (name, shown by default, meaning, the same value's path in size's document)."""
    return list(_modelcalc._sweep_columns_help())


def gpus():
    """The compiled-in GPU catalog (`modelcalc gpus`), as Gpu objects in display order."""
    return _modelcalc._catalog_gpus()


def models():
    """The compiled-in presets (`modelcalc models`) as (name, Hugging Face repo), sorted by name."""
    return _modelcalc._preset_names()


# The commands without a direct binding are the CLI bridge's functions (modelcalc.roofline(...) is
# modelcalc.cli.roofline(...): flags as keywords, the --json document as dicts).
for _name in cli.__all__:
    if _name not in globals() and _name not in ("run", "text", "commands"):
        globals()[_name] = getattr(cli, _name)
        __all__.append(_name)
del _name

__version__ = _modelcalc.run(["--version"])[1].split()[-1]
