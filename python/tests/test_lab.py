"""The lab's success criteria (seeds/003, Lab 01) against modelcalc.lab, or any module with the lab's API.

    python3 python/tests/test_lab.py                      # plain Python (what ctest runs)
    pytest python/tests/test_lab.py                        # pytest-style (test_ functions, plain asserts);
                                                           # not run under pytest here: it is not installed
    LAB_MODULE=solution python3 python/tests/test_lab.py   # against another implementation

Every expected number is derived here by hand, formula in the comment; none is the program's output.
"""
import importlib
import inspect
import math
import os
import sys

lab = importlib.import_module(os.environ.get("LAB_MODULE", "modelcalc.lab"))

A100_PEAK = 312e12  # dense bf16 FLOP/s (the lab's A100)
A100_BW = 2.0e12    # B/s: ridge = 312e12 / 2.0e12 = 156 FLOP/byte


def close(a, b, rel=1e-12):
    return math.isclose(a, b, rel_tol=rel)


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return e
    raise AssertionError(f"{fn.__name__} did not raise {exc.__name__}")


# ---------------------------------------------------------------- FLOPs: 6 N D to train, 2 N per token to run

def test_training_is_6nd():
    assert close(lab.training_flops(7e9, 1e12), 6 * 7e9 * 1e12)  # 4.2e22: forward 2 + backward 4 per param-token


def test_inference_is_2n_per_token():
    assert close(lab.forward_flops_per_token(7e9), 1.4e10)     # one multiply-add (2 FLOP) per parameter
    assert close(lab.inference_flops(7e9, 1000), 1.4e13)      # 2 N T


# ---------------------------------------------------------------- memory

def test_weight_memory_across_precisions():
    n = 7_000_000_000
    assert lab.weight_memory_bytes(n, "fp32") == 28_000_000_000  # 4 B/param
    assert lab.weight_memory_bytes(n, "fp16") == 14_000_000_000  # 2 B/param
    assert lab.weight_memory_bytes(n, "int8") == 7_000_000_000   # 1 B/param
    assert lab.weight_memory_bytes(n, "int4") == 3_500_000_000   # two parameters per byte
    assert lab.weight_memory_bytes(n, 2) == lab.weight_memory_bytes(n, "fp16")  # bytes per param as a number


def test_kv_cache_2gb_and_gqa_054gb():
    # 2 (K and V) x L 32 x T 4096 x d 4096 x 2 B (fp16) = 2,147,483,648 B, "about 2 GB".
    mha = lab.kv_cache_bytes(32, 4096, 4096)
    assert mha == 2 * 32 * 4096 * 4096 * 2 == 2_147_483_648
    # GQA 8 of 32 heads: d_kv = 4096 x 8 / 32 = 1024, a quarter: 536,870,912 B = 0.54 GB.
    gqa = lab.kv_cache_bytes(32, 4096, 4096, n_heads=32, n_kv_heads=8)
    assert gqa == 2 * 32 * 4096 * 1024 * 2 == 536_870_912
    assert round(gqa / 1e9, 2) == 0.54
    assert lab.kv_cache_bytes(32, 4096, 4096, batch=8) == 8 * mha  # grows with batch x context
    assert lab.kv_cache_bytes(32.0, 4096.0, 4096.0, 2.0) == mha    # whole numbers as floats, bytes as a number


def test_kv_cache_gqa_needs_heads_that_divide():
    e = raises(ValueError, lab.kv_cache_bytes, 32, 4096, 4096, n_heads=32, n_kv_heads=7)
    assert "n_kv_heads" in str(e)


# ---------------------------------------------------------------- Chinchilla

def test_chinchilla_20_tokens_per_param_and_its_inverse():
    assert close(lab.chinchilla_optimal_tokens(70e9), 1.4e12)  # D = 20 N
    c = lab.training_flops(70e9, 1.4e12)                        # C = 6 N (20 N) = 5.88e23
    assert close(lab.chinchilla_optimal_params(c), 70e9)        # N = sqrt(C / 120)


# ---------------------------------------------------------------- roofline

def test_roofline():
    assert close(lab.roofline_ridge_intensity(A100_PEAK, A100_BW), 156.0)        # 312e12 / 2e12
    assert close(lab.roofline_attainable_flops(1.0, A100_PEAK, A100_BW), 2.0e12)  # bw x I below the ridge
    assert lab.roofline_attainable_flops(1000.0, A100_PEAK, A100_BW) == A100_PEAK  # the peak above it
    assert close(lab.arithmetic_intensity(2e9, 1e9), 2.0)


def test_decode_is_memory_bound():
    # Decode at batch 1 does ~2 FLOP per 2-byte weight read: I ~ 1 FLOP/byte, far below the ridge of 156.
    assert lab.is_memory_bound(1.0, A100_PEAK, A100_BW) is True
    assert lab.is_memory_bound(200.0, A100_PEAK, A100_BW) is False  # a big GEMM lands above the ridge


# ---------------------------------------------------------------- decode, cost, mfu

def test_decode_tokens_per_sec_and_batching():
    w = 14e9  # a 7B model in fp16
    # Weights only: bw / W = 2e12 / 14e9 = 142.857 tokens/s.
    assert close(lab.decode_tokens_per_sec(A100_BW, w), 2e12 / 14e9)
    # A tiny KV (1 MB a sequence): one weight read serves the batch, so B sequences get ~B times the tokens:
    # B bw / (W + B KV), at B = 64: 64 x 2e12 / (14e9 + 64e6) = 9101.3, 63.7 x batch 1 (2e12 / 14.001e9).
    one = lab.decode_tokens_per_sec(A100_BW, w, 1e6, 1)
    b64 = lab.decode_tokens_per_sec(A100_BW, w, 1e6, 64)
    assert close(b64, 64 * 2e12 / (14e9 + 64e6))
    assert 63 < b64 / one < 64
    # Once KV matters (0.5 GB a sequence), scaling bends: at B = 256, 256 x 2e12 / (14e9 + 128e9) = 3605.6,
    # 26.2 x batch 1 (2e12 / 14.5e9 = 137.9), nowhere near 256.
    one_kv = lab.decode_tokens_per_sec(A100_BW, w, 0.5e9, 1)
    b256_kv = lab.decode_tokens_per_sec(A100_BW, w, 0.5e9, 256)
    assert close(b256_kv, 256 * 2e12 / (14e9 + 128e9))
    assert b256_kv / one_kv < 27


def test_cost_per_million_tokens():
    # $2/GPU-hour at 1000 tokens/s: 2 / (1000 x 3600) x 1e6 = $0.5556 per 1M tokens; 8 GPUs for the same rate: 8x.
    assert close(lab.cost_per_million_tokens(2.0, 1000.0), 2.0 / 3.6)
    assert close(lab.cost_per_million_tokens(2.0, 1000.0, 8), 8 * 2.0 / 3.6)


def test_mfu():
    # 1000 tokens/s x 2 x 7e9 / 312e12 = 0.044872 (inference); training counts 6N: 0.134615.
    assert close(lab.mfu(1000.0, 7e9, A100_PEAK), 1000 * 2 * 7e9 / 312e12)
    assert close(lab.mfu(1000.0, 7e9, A100_PEAK, mode="training"), 1000 * 6 * 7e9 / 312e12)


# ---------------------------------------------------------------- the tradeoff

BIG = dict(name="70b-tp4", quality=0.80, latency=17, throughput=3778, cost=0.88, memory=227)
SMALL = dict(name="8b", quality=0.62, latency=15, throughput=4253, cost=0.20, memory=50)


def test_weights_flip_the_winner():
    a, b = lab.Candidate(**BIG), lab.Candidate(**SMALL)
    # Quality alone: 0.80 > 0.62, the big model wins on quality.
    assert tuple(lab.resolve_tradeoff(a, b, {"quality": 1.0})) == ("70b-tp4", "quality")
    # The same two candidates, cost alone: $0.20 < $0.88, the small one wins on cost.
    assert tuple(lab.resolve_tradeoff(a, b, {"cost": 1.0})) == ("8b", "cost")
    # Half and half: big = 0.5 x 1 + 0.5 x 0.20/0.88 = 0.61364, small = 0.5 x 0.62/0.80 + 0.5 x 1 = 0.8875;
    # cost contributes 0.5 x (1 - 0.2273) = 0.3864 of the margin, quality -0.1125: cost decides.
    r = lab.resolve_tradeoff(a, b, {"quality": 0.5, "cost": 0.5})
    winner, dial = r
    assert (winner, dial) == ("8b", "cost")
    if hasattr(r, "score_a"):  # modelcalc's details
        assert close(r.score_a, 0.5 + 0.5 * 0.20 / 0.88)
        assert close(r.score_b, 0.5 * 0.62 / 0.80 + 0.5)


# ---------------------------------------------------------------- extensions

def test_training_memory_16_bytes_per_param_needs_zero():
    # AdamW mixed precision: 2 weights + 2 gradients + 12 optimizer (fp32 master, m, v) = 16 B per parameter.
    states = lab.training_memory_bytes(7_000_000_000)
    assert states == 16 * 7_000_000_000 == 112_000_000_000  # > 80 GB: a 7B does not train on one 80 GB GPU
    assert states > 80e9
    assert lab.training_memory_bytes(7_000_000_000, optimizer="sgd") == 12 * 7_000_000_000  # 2 + 2 + 8
    assert lab.training_memory_bytes(7_000_000_000, optimizer="adam8bit") == 10 * 7_000_000_000  # 2 + 2 + 6
    assert lab.training_memory_bytes(7_000_000_000, dtype="fp32") == 16 * 7_000_000_000  # 4 + 4 + 8


def test_paged_kv_waste():
    # Blocks of 16: 1 -> 16, 16 -> 16, 17 -> 32, 100 -> 112 tokens: 176 allocated for 134 used, 42 wasted.
    w = lab.paged_kv_waste([1, 16, 17, 100], 16)
    assert (w.allocated_tokens, w.used_tokens, w.waste_tokens) == (176, 134, 42)
    assert close(w.waste_fraction, 42 / 176)


def test_attention_ffn_crossover():
    # Attention 4 T d per token per layer = FFN 2 (2 d 4d) = 16 d^2 at T = 4 d: 16,384 tokens at d = 4096.
    assert close(lab.attention_ffn_crossover(4096), 16384.0)
    # A SwiGLU FFN of 14,336 (Llama-3-8B): P = 3 x 4096 x 14336 = 176,160,768, T = P / (2 x 4096) = 21,504.
    assert close(lab.attention_ffn_crossover(4096, 14336, glu=True), 21504.0)


def test_signatures_name_the_arguments():
    params = list(inspect.signature(lab.kv_cache_bytes).parameters)
    assert params == ["n_layers", "seq_len", "d_model", "dtype", "batch", "n_heads", "n_kv_heads"]
    assert list(inspect.signature(lab.is_memory_bound).parameters) == ["intensity", "peak_flops", "bandwidth"]
    assert list(inspect.signature(lab.Candidate).parameters) == [
        "name", "quality", "latency", "throughput", "cost", "memory"]


def main():
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"ok   {name}")
        except Exception as e:  # noqa: BLE001 -- report every failure, then fail
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
    print(f"{len(tests) - failed} passed, {failed} failed ({lab.__name__})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
