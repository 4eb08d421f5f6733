"""The lab (seeds' Lab 01) under its own names and argument order, computed by modelcalc's formula core.

    from modelcalc import lab
    lab.kv_cache_bytes(32, 4096, 4096)                              # 2,147,483,648 B: 2 L T d bytes (MHA, fp16)
    lab.kv_cache_bytes(32, 4096, 4096, n_heads=32, n_kv_heads=8)    # 536,870,912 B: GQA 8/32
    lab.is_memory_bound(1.0, 312e12, 2.0e12)                        # True: decode is far below the ridge (156)
    a = lab.Candidate("big", quality=0.80, latency=17, throughput=3778, cost=0.88, memory=227)
    b = lab.Candidate("small", quality=0.62, latency=15, throughput=4253, cost=0.20, memory=50)
    lab.resolve_tradeoff(a, b, {"quality": 0.9, "cost": 0.1})       # ('big', 'quality')
    lab.resolve_tradeoff(a, b, {"quality": 0.3, "cost": 0.7})       # ('small', 'cost')

A lab's own suite runs against it with LAB_MODULE=modelcalc.lab. Every function is a binding of the C++ core
(include/modelcalc/formulas.h, lab.h, capacity.h, tradeoff.h), the functions modelcalc's commands use, so a
figure here is the CLI's figure. Units: parameters and tokens as counts, FLOP, bytes, FLOP/s, B/s, seconds,
US dollars. Bad input raises modelcalc.InputError (a ValueError) naming the argument.

Signatures the lab's text does not spell out are chosen as follows (and are what help() shows):
    weight_memory_bytes(n_params, dtype="fp16")          dtype a name or bytes per parameter (4, 2, 1, 0.5)
    kv_cache_bytes(n_layers, seq_len, d_model, dtype="fp16", batch=1, n_heads=None, n_kv_heads=None)
    chinchilla_optimal_params(compute_flops)             N = sqrt(C / 120), the inverse of 6 N (20 N)
    roofline_attainable_flops(intensity, peak_flops, bandwidth); is_memory_bound(intensity, peak, bandwidth)
    decode_tokens_per_sec(bandwidth, weight_bytes, kv_bytes_per_seq=0.0, batch=1)
    cost_per_million_tokens(usd_per_gpu_hour, tokens_per_s, gpus=1)
    mfu(tokens_per_s, n_params, peak_flops, mode="inference")       mode "training" counts 6N per token
    Candidate(name, quality, latency, throughput, cost, memory); resolve_tradeoff(a, b, weights) -> (winner, dial)
    training_memory_bytes(N, optimizer="adamw", dtype="fp16", activation_checkpointing=False)
    paged_kv_waste(seq_lens, block_size) -> PagedKvWaste;  attention_ffn_crossover(d_model, d_ff=None, ...)
"""

from dataclasses import dataclass

from . import _modelcalc

_n = _modelcalc._lab

training_flops = _n.training_flops
forward_flops_per_token = _n.forward_flops_per_token
inference_flops = _n.inference_flops
weight_memory_bytes = _n.weight_memory_bytes
kv_cache_bytes = _n.kv_cache_bytes
chinchilla_optimal_tokens = _n.chinchilla_optimal_tokens
chinchilla_optimal_params = _n.chinchilla_optimal_params
arithmetic_intensity = _n.arithmetic_intensity
roofline_ridge_intensity = _n.roofline_ridge_intensity
roofline_attainable_flops = _n.roofline_attainable_flops
is_memory_bound = _n.is_memory_bound
decode_tokens_per_sec = _n.decode_tokens_per_sec
cost_per_million_tokens = _n.cost_per_million_tokens
mfu = _n.mfu
training_gpu_hours = _n.training_gpu_hours
training_days = _n.training_days
decode_compute_ceiling = _n.decode_compute_ceiling
training_memory_bytes = _n.training_memory_bytes
paged_kv_waste = _n.paged_kv_waste
PagedKvWaste = _n.PagedKvWaste
attention_ffn_crossover = _n.attention_ffn_crossover

DIALS = ("quality", "latency", "throughput", "cost", "memory")


@dataclass(frozen=True)
class Candidate:
    """A design scored on five dials. quality and throughput: higher is better; latency, cost and memory:
    lower is better. Units are yours but must match between the two candidates (they cancel in the ratios):
    e.g. quality a benchmark score, latency seconds per token, throughput tokens/s, cost USD per 1M tokens,
    memory bytes. Every dial must be a positive finite number."""

    name: str
    quality: float
    latency: float
    throughput: float
    cost: float
    memory: float


class TradeoffResult(tuple):
    """(winner, deciding_dial): the winner's name and the dial that decided it (both None on a tie).

    Also: score_a, score_b (in (0, 1]), margin, normalized_a/b and contribution (per dial), weights
    (normalized), deciding_weight, deciding_edge (the winner's k-times edge on the deciding dial),
    loser_leads, sentence (the decision-record sentence), winner_candidate, and to_dict() (the CLI's
    `tradeoff --json` document).
    """

    def __new__(cls, fields, a, b, weights):
        self = super().__new__(cls, (fields["winner"], fields["deciding_dial"]))
        self._fields = fields
        self._candidates = (a, b)
        self._weights = weights
        return self

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def winner(self):
        return self[0]

    @property
    def deciding_dial(self):
        return self[1]

    @property
    def winner_candidate(self):
        """The winning Candidate (None on a tie)."""
        a, b = self._candidates
        return a if self[0] == a.name else b if self[0] == b.name else None

    def to_dict(self):
        """`modelcalc tradeoff --json` for the same candidates and weights."""
        a, b = self._candidates
        return _n._tradeoff_document(a, b, self._weights)

    def __repr__(self):
        return f"TradeoffResult(winner={self[0]!r}, deciding_dial={self[1]!r}, margin={self._fields['margin']:.3g})"


def resolve_tradeoff(a, b, weights):
    """Scores a against b under the workload's weights; returns (winner, deciding_dial) with the details.

    weights: {"quality": 0.4, "cost": 0.6} (dials left out weigh 0; normalized to sum 1), the CLI's string
    "quality=0.4,cost=0.6", or an object with the five dials as attributes. Per dial the better candidate
    scores 1 and the other the ratio worse/better; a candidate's score is the weighted sum; the deciding dial
    is the one contributing most to the margin. The same two candidates flip winners when the weights change:
    "best model" only means something for given weights.
    """
    return TradeoffResult(_n._resolve_tradeoff(a, b, weights), a, b, weights)


__all__ = [
    "training_flops", "forward_flops_per_token", "inference_flops", "weight_memory_bytes", "kv_cache_bytes",
    "chinchilla_optimal_tokens", "chinchilla_optimal_params", "arithmetic_intensity", "roofline_ridge_intensity",
    "roofline_attainable_flops", "is_memory_bound", "decode_tokens_per_sec", "cost_per_million_tokens", "mfu",
    "training_gpu_hours", "training_days", "decode_compute_ceiling", "Candidate", "TradeoffResult",
    "resolve_tradeoff", "training_memory_bytes", "paged_kv_waste", "PagedKvWaste", "attention_ffn_crossover",
    "DIALS",
]
