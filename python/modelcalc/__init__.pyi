# Type stubs for editors and type checkers (the implementation: __init__.py and the native _modelcalc).
# Units: counts, bytes, seconds, FLOP, FLOP/s, B/s, tokens/s; strings are read as the CLI reads them.
import os
from typing import Any, Callable, Iterable, Mapping, Sequence, Union

from . import cli as cli
from . import lab as lab
from ._results import Columns as Columns, Doc as Doc

__version__: str

Count = Union[int, float, str]            # 8192, 8e3, "8K" (K = 1,000), "8Ki"
Seconds = Union[float, int, str]          # 0.05 (seconds) or "50ms"
Bytes = Union[float, int, str]            # 80e9 or "80GB"
Dtype = str                               # fp32 fp16 bf16 fp8 int8 int4 nvfp4 mxfp4
CountList = Union[Count, Iterable[Count], str]   # 1, [1, 8, 64], range(1, 65), a NumPy array, "1:64"
ModelLike = Union[str, "Model"]
GpuLike = Union[str, "Gpu"]

class InputError(ValueError): ...

class Model:
    def __init__(self, name: str | None = None, *, config: str | os.PathLike[str] | None = None,
                 checkpoint: str | os.PathLike[str] | None = None,
                 layers: Count | None = None, hidden: Count | None = None, heads: Count | None = None,
                 kv_heads: Count | None = None, head_dim: Count | None = None, ffn: Count | None = None,
                 vocab: Count | None = None, glu: bool = False, tied: bool = False) -> None: ...
    name: str
    model_type: str
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    gated_ffn: bool
    tied: bool
    experts: int
    experts_used: int
    max_context: int | None
    default_context: int
    is_moe: bool
    is_mla: bool
    params: dict[str, int]
    assumptions: list[str]

class Gpu:
    def __init__(self, name: str | None = None, *, bandwidth: Bytes | None = None, capacity: Bytes | None = None,
                 peak: Union[float, str, None] = None) -> None: ...
    key: str
    name: str
    aliases: list[str]
    capacity_bytes: float
    exposed_bytes: float
    usable_capacity_bytes: float
    bandwidth_bytes_per_s: float
    peak_bf16_flops: float
    peak_fp8_flops: float
    peak_int8_ops: float
    peak_fp4_flops: float
    peak_fp32_flops: float
    domain_gpus: int
    link_bytes_per_s: float
    interconnect: str
    source: str
    confirmed: bool
    notes: str
    def peak_flops(self, dtype: Dtype = "bf16") -> float: ...
    def ridge(self, dtype: Dtype = "bf16") -> float: ...
    def to_dict(self) -> dict[str, Any]: ...

class _Document:
    """A command's result: its document's sections as attributes and items."""
    def to_dict(self) -> dict[str, Any]: ...
    def text(self) -> str: ...
    def explain(self) -> str: ...
    def strings(self) -> dict[str, str]: ...  # not on PlanResult
    def keys(self) -> Iterable[str]: ...
    def __getitem__(self, key: str) -> Any: ...
    def __getattr__(self, name: str) -> Any: ...

class SizeResult(_Document):
    has_gpu: bool
    # Every sweep column (modelcalc.sweep_columns()), read from the result itself:
    seq: int
    batch: int
    dtype: str
    kv_dtype: str
    params_total: int
    params_active: int
    weight_bytes: int  # as served: the checkpoint's bytes (16-bit parts kept, scales counted)
    kv_bytes_per_sequence: int
    fits: bool
    max_sequences: int | None  # None where the engine refuses the split (null in size --json)
    step_s: float | None
    tokens_per_s_per_sequence: float | None
    tokens_per_s_aggregate: float | None
    regime: str
    regime_at_capacity: str
    predicted_fits: bool
    predicted_max_sequences: int | None  # None: no prediction (no engine profile runs on the GPU)
    predicted_step_s: float | None
    predicted_tokens_per_s_per_sequence: float | None
    predicted_tokens_per_s_aggregate: float | None
    intensity: float | None
    params_blocks: int
    kv_bytes_per_token: int
    decode_flops_per_token: float
    prefill_flops: float
    attention_fraction: float
    ridge: float
    gpu_capacity_bytes: float
    gpu_bandwidth_bytes_per_s: float
    # The seed's whiteboard (the split's GPUs pooled, no reserve):
    teaching_weight_bytes: int  # every parameter at the dtype (N x b)
    teaching_fits: bool
    teaching_tokens_per_s_weights_only: float
    teaching_tokens_per_s_with_kv: float
    teaching_tokens_per_s_aggregate: float
    teaching_max_batch_by_capacity: int
    teaching_kv_room_bytes: float | None  # None when the weights do not fit (no figure, as size --json)
    teaching_step_bytes: float
    teaching_compute_bound_batch: float
    layout: str
    a2a_s: float
    accepted_tokens_per_step: float
    # The document's sections (size --json):
    params: Doc
    weights: Doc
    flops: Doc
    kv: Doc
    decode: Doc
    roofline: Doc
    options: Doc
    model: Doc
    gpu: Doc
    textbook_vs_modeled: Doc
    deployment: Doc
    memory_per_gpu: Doc
    decode_step: Doc
    prefill: Doc
    ignored: list[str]
    warnings: list[str]

class KvBudgetResult(_Document):
    max_sequences: int
    budget_bytes: int
    kv_bytes_per_sequence: int
    proposals: list[Doc]

class PlanResult(_Document):
    feasible: bool
    configs: list[Doc]
    misses: list[Doc]
    frontier: Doc

class TrainPlanResult(_Document):
    feasible: bool

class DiagnoseResult(_Document):
    regime: str
    confirmed: bool
    detail: str
    fixes: list[Doc]

class WeightShard:
    embeddings: int
    lm_head: int
    attention: int
    mlp: int
    experts: int
    other: int
    scales: int
    total: int

class DeploymentMemory:
    capacity: float
    reserve: float
    workspace: float
    weights: WeightShard
    kv_per_token: int
    kv_per_sequence: int
    free_for_kv: float
    max_sequences: int

class DecodeBytes:
    weights: float
    experts: float
    lm_head: float
    embedding_rows: float
    kv: float
    total: float

class DecodeFlops:
    linear: float
    attention: float
    lm_head: float
    total: float

class DecodeStep:
    batch: int
    context: int
    experts_touched: float
    bytes: DecodeBytes
    flops: DecodeFlops
    bytes_per_gpu: float
    flops_per_gpu: float
    intensity: float
    ridge: float
    compute_seconds: float
    memory_seconds: float
    allreduce_seconds: float
    handoff_seconds: float
    comm_seconds: float
    seconds: float
    tokens_per_s_per_sequence: float
    tokens_per_s_aggregate: float
    fits: bool
    regime: str

class Prefill:
    prompt_tokens: int
    flops: float
    attention_flops: float
    bytes: float
    compute_seconds: float
    memory_seconds: float
    comm_seconds: float
    seconds: float

class DeploymentPoint:
    memory: DeploymentMemory
    decode: DecodeStep
    prefill: Prefill

class Deployment:
    memory: DeploymentMemory
    decode: DecodeStep
    prefill: Prefill
    compute_bound_batch: int
    tp: int
    pp: int
    ep: int
    dp: int
    context: int
    batch: int
    def evaluate(self, batch: Count | None = None, context: Count | None = None,
                 prompt: Count | None = None) -> DeploymentPoint: ...
    def to_dict(self) -> dict[str, Any]: ...

def size(model: ModelLike, gpu: GpuLike | None = None, *, context: Count | None = None, seq: Count | None = None,
         batch: Count = 1,
         dtype: Dtype | None = None, kv_dtype: Dtype | None = None, gpus: Count | None = None, tp: Count | None = None,
         pp: Count | None = None, ep: Count | None = None, dp: Count | None = None, prompt: Count | None = None,
         compute_dtype: Dtype | None = None, reserve: Union[float, str, None] = None,
         train_tokens: Count | None = None, engine: str | None = None, gpu_memory_utilization: Union[float, str, None] = None,
         kv_cache_free_gpu_mem_fraction: Union[float, str, None] = None,
         mem_fraction_static: Union[float, str, None] = None, swa_full_tokens_ratio: Union[float, str, None] = None, max_model_len: Count | None = None,
         max_num_batched_tokens: Count | None = None, max_num_seqs: Count | None = None,
         block_size: Count | None = None, allow_long_max_model_len: bool = False,
         dp_attention: bool = False, expert_imbalance: Union[float, str, None] = None,
         redundant_experts: Count | None = None, two_batch_overlap: bool = False, spec_tokens: Count | None = None,
         spec_acceptance: Union[float, str, None] = None, spec_method: str | None = None,
         draft_model: Union[str, os.PathLike[str], None] = None, prefix_hit: Union[float, str, None] = None,
         prefix_tokens: Count | None = None,
         profile: Union[str, os.PathLike[str], None] = None) -> SizeResult: ...
def kv_budget(model: ModelLike, gpu: GpuLike | None = None, *, budget: Bytes | None = None, context: Count | None = None,
              seq: Count | None = None,
              gpus: Count | None = None, reserve: Union[float, str, None] = None, dtype: Dtype | None = None,
              kv_dtype: Dtype | None = None, workspace: Bytes | None = None, mean_len: Count | None = None,
              block_size: Count | None = None, batch: Count = 1, prompt: Count | None = None, tp: Count | None = None,
              pp: Count | None = None, ep: Count | None = None, dp: Count | None = None,
              compute_dtype: Dtype | None = None, engine: str | None = None,
              gpu_memory_utilization: Union[float, str, None] = None,
              kv_cache_free_gpu_mem_fraction: Union[float, str, None] = None,
              mem_fraction_static: Union[float, str, None] = None, swa_full_tokens_ratio: Union[float, str, None] = None, max_model_len: Count | None = None,
              max_num_batched_tokens: Count | None = None, max_num_seqs: Count | None = None,
              allow_long_max_model_len: bool = False,
              dp_attention: bool = False, expert_imbalance: Union[float, str, None] = None,
              redundant_experts: Count | None = None, two_batch_overlap: bool = False, spec_tokens: Count | None = None,
              spec_acceptance: Union[float, str, None] = None, spec_method: str | None = None,
              draft_model: Union[str, os.PathLike[str], None] = None, prefix_hit: Union[float, str, None] = None,
              prefix_tokens: Count | None = None,
         profile: Union[str, os.PathLike[str], None] = None) -> KvBudgetResult: ...
def plan(model: ModelLike, *, isl: Count, osl: Count, qps: Union[float, str, None] = None,
         rate: Union[float, str, None] = None, concurrency: Count | None = None, ttft: Seconds | None = None,
         tpot: Seconds | None = None, tokens_per_s_per_user: Union[float, str, None] = None,
         gpu: Union[GpuLike, Sequence[GpuLike], None] = None, max_gpus: Count = 64,
         dtype: Union[Dtype, Sequence[Dtype], None] = None, kv_dtype: Union[Dtype, Sequence[Dtype], None] = None,
         batch: CountList | None = None, max_pp: Count = 8, price: Union[Mapping[str, float], str, None] = None,
         efficiency: Union[float, str] = 1.0, top: Count = 10, frontier: bool = False, rank_by: str | None = None,
         engine: str | None = None, gpu_memory_utilization: Union[float, str, None] = None,
         kv_cache_free_gpu_mem_fraction: Union[float, str, None] = None,
         mem_fraction_static: Union[float, str, None] = None, swa_full_tokens_ratio: Union[float, str, None] = None, max_model_len: Count | None = None,
         max_num_batched_tokens: Count | None = None, max_num_seqs: Count | None = None,
         block_size: Count | None = None, allow_long_max_model_len: bool = False,
         disaggregated: bool = False, kv_transfer_overlap: bool = False,
         expert_imbalance: Union[float, str, None] = None, two_batch_overlap: bool = False,
         spec_tokens: Count | None = None, spec_acceptance: Union[float, str, None] = None,
         spec_method: str | None = None, draft_model: Union[str, os.PathLike[str], None] = None,
         prefix_hit: Union[float, str, None] = None, prefix_tokens: Count | None = None,
         ep: CountList | None = None, profile: Union[str, os.PathLike[str], None] = None,
         compare: Union[str, os.PathLike[str], None] = None, length_dist: str | None = None) -> PlanResult: ...
def train_plan(model: ModelLike, *, tokens: Count, days: Union[float, str],
               gpu: Union[GpuLike, Sequence[GpuLike], None] = None, price: Union[Mapping[str, float], str, None] = None,
               max_gpus: Count = 4096, seq: Count = 4096, micro_batch: CountList = (1, 2, 4, 8),
               global_batch: Count | None = None, max_batch_tokens: Count | None = None, max_tp: Count = 8,
               max_pp: Count = 16, max_ep: Count = 64, optimizer: str = "adamw", bf16_grads: bool = False,
               flash: bool = True, rank_by: str = "cost", top: Count = 10) -> TrainPlanResult: ...
def diagnose(evidence: Union[str, os.PathLike[str], Mapping[str, Any], None] = None, *, model: ModelLike | None = None,
             gpu: GpuLike | None = None, phase: str | None = None, params: Count | None = None,
             layers: Count | None = None, hidden: Count | None = None, heads: Count | None = None,
             kv_heads: Count | None = None, head_dim: Count | None = None, dtype: Dtype | None = None,
             gpus: Count | None = None, batch: Count | None = None, context: Count | None = None,
             seq: Count | None = None, prompt: Count | None = None, tokens_per_s: float | None = None,
             aggregate_tokens_per_s: float | None = None, ttft: Seconds | None = None, itl: Seconds | None = None,
             flop_util: Union[float, str, None] = None, bw_util: Union[float, str, None] = None,
             kernels_per_step: Count | None = None, kernel_us: Union[tuple[float, float], float, str, None] = None,
             gap_us: Union[tuple[float, float], float, str, None] = None,
             peak_transient: Bytes | None = None, engine: str | None = None, gpu_memory_utilization: Union[float, str, None] = None,
             kv_cache_free_gpu_mem_fraction: Union[float, str, None] = None,
             mem_fraction_static: Union[float, str, None] = None, swa_full_tokens_ratio: Union[float, str, None] = None, max_model_len: Count | None = None,
             max_num_batched_tokens: Count | None = None, max_num_seqs: Count | None = None,
             block_size: Count | None = None, allow_long_max_model_len: bool = False,
             reserve: Union[float, str, None] = None, tp: Count | None = None,
             pp: Count | None = None, ep: Count | None = None, dp: Count | None = None,
             compute_dtype: Dtype | None = None, kv_dtype: Dtype | None = None, dp_attention: bool = False,
             redundant_experts: Count | None = None, expert_imbalance: Union[float, str, None] = None,
             two_batch_overlap: bool = False, spec_tokens: Count | None = None,
             spec_acceptance: Union[float, str, None] = None, spec_method: str | None = None,
             draft_model: Union[str, os.PathLike[str], None] = None, prefix_hit: Union[float, str, None] = None,
             prefix_tokens: Count | None = None,
         profile: Union[str, os.PathLike[str], None] = None) -> DiagnoseResult: ...
def deployment(model: ModelLike, gpu: GpuLike, *, context: Count | None = None, seq: Count | None = None,
               batch: Count = 1,
               prompt: Count | None = None, gpus: Count | None = None, tp: Count | None = None,
               pp: Count | None = None, ep: Count | None = None, dp: Count | None = None, dtype: Dtype | None = None,
               compute_dtype: Dtype | None = None, kv_dtype: Dtype | None = None,
               reserve: Union[float, str, None] = None, workspace: Bytes | None = None,
               engine: str | None = None, gpu_memory_utilization: Union[float, str, None] = None,
               kv_cache_free_gpu_mem_fraction: Union[float, str, None] = None,
               mem_fraction_static: Union[float, str, None] = None, swa_full_tokens_ratio: Union[float, str, None] = None, max_model_len: Count | None = None,
               max_num_batched_tokens: Count | None = None, max_num_seqs: Count | None = None,
               block_size: Count | None = None, allow_long_max_model_len: bool = False,
               profile: Union[str, os.PathLike[str], None] = None) -> Deployment: ...
def sweep(model: Union[ModelLike, Iterable[ModelLike]], gpu: Union[GpuLike, Iterable[GpuLike]], *,
          context: CountList | None = None, seq: CountList | None = None, batch: CountList = 1,
          dtype: Union[Dtype, Iterable[Dtype], None] = None,
          kv_dtype: Union[Dtype, Iterable[Dtype], None] = None, fields: Union[str, Iterable[str], None] = None,
          on_chunk: Callable[[Columns], Any] | None = None, chunk_rows: int = ...,
          engine: str | None = None, gpu_memory_utilization: Union[float, str, None] = None,
          kv_cache_free_gpu_mem_fraction: Union[float, str, None] = None,
          mem_fraction_static: Union[float, str, None] = None, swa_full_tokens_ratio: Union[float, str, None] = None, max_model_len: Count | None = None,
          max_num_batched_tokens: Count | None = None, max_num_seqs: Count | None = None,
          block_size: Count | None = None, allow_long_max_model_len: bool = False,
          gpus: CountList | None = None, tp: CountList | None = None, pp: CountList | None = None,
          ep: CountList | None = None, dp: CountList | None = None, dp_attention: bool = False,
          redundant_experts: Count | None = None, expert_imbalance: Union[float, str, None] = None,
          two_batch_overlap: bool = False, spec_tokens: Count | None = None,
          spec_acceptance: Union[float, str, None] = None, spec_method: str | None = None,
          draft_model: Union[str, os.PathLike[str], None] = None, prefix_hit: Union[float, str, None] = None,
          prefix_tokens: Count | None = None,
         profile: Union[str, os.PathLike[str], None] = None) -> Any: ...
def sweep_columns() -> list[tuple[str, bool, str, str]]: ...
def gpus() -> list[Gpu]: ...
def models() -> list[tuple[str, str]]: ...
def run(args: Sequence[Any]) -> tuple[int, str, str]: ...
# The commands without a direct binding: the CLI bridge's functions (flags as keywords, --json as dicts).
def calibrate(**flags: Any) -> Any: ...
def exercises(**flags: Any) -> Any: ...
def train_memory(**flags: Any) -> Any: ...
def paged_kv(**flags: Any) -> Any: ...
def roofline(**flags: Any) -> Any: ...
def train(**flags: Any) -> Any: ...
def chinchilla(**flags: Any) -> Any: ...
def cost(**flags: Any) -> Any: ...
def mfu(**flags: Any) -> Any: ...
def tradeoff(**flags: Any) -> Any: ...
def example(**flags: Any) -> Any: ...
def text(command: str, **flags: Any) -> str: ...
def commands() -> list[tuple[str, str]]: ...
