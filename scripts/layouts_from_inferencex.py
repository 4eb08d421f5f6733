#!/usr/bin/python3
"""Writes data/serving-multiengine.tsv: the shared serving-multiengine.tsv with
the layout its InferenceX rows leave unstated read from the benchmark script
and sweep config each row cites.

  scripts/layouts_from_inferencex.py SHARED.tsv INFERENCEX_GIT_DIR > data/serving-multiengine.tsv

SHARED.tsv is ../shared/reference/serving-multiengine.tsv; INFERENCEX_GIT_DIR a
clone of SemiAnalysisAI/InferenceX with its history (the rows cite commits).
Debian's python3 and python3-yaml only. For every row whose notes cite
"flags: SemiAnalysisAI/InferenceX@COMMIT:PATH":
  dp_attention (when empty): SGLang's scripts pass --enable-dp-attention or
    not (none of the cited ones does: false); TensorRT-LLM's take DP_ATTENTION
    from the sweep config .github/configs/nvidia-master.yaml at COMMIT, the
    search-space entry of the row's isl/osl, tp, ep and concurrency (dp-attn
    absent = false); no single entry: left empty.
  spec_tokens (MTP rows): the draft tokens a step proposes, SGLang's
    --speculative-num-steps (EAGLE with topk 1: one token per step) and
    TensorRT-LLM's num_nextn_predict_layers (the scripts' MTP=, and the value
    they set under DP_ATTENTION=true).
  engine settings: the script is followed (its assignments, if/elif/else and
    heredocs for the row's concurrency, lengths, tp, ep and DP_ATTENTION) to
    the server's launch line: max_num_seqs (SGLang --max-running-requests,
    TensorRT-LLM --max_batch_size), max_num_batched_tokens
    (--chunked-prefill-size, --max_num_tokens), memory_fraction
    (--mem-fraction-static, kv_cache_config.free_gpu_memory_fraction) and
    scheduler_poll_steps (SGLang --scheduler-recv-interval or
    --num-continuous-decode-steps, TensorRT-LLM batch_wait_timeout_iters and
    attention DP's balancing timeout_iters: at most that many
    decode steps before a new request is scheduled).
Disaggregated rows: prefill_dp_attention from the notes' "prefill N worker(s)
TPa EPb DPA=X" (the dp_attention column is the decode worker's). Columns
spec_tokens, prefill_dp_attention, the four settings and layout_source (what
was read, where) are added; nothing else changes.
"""
import fnmatch
import re
import subprocess
import sys

import yaml

FLAGS = re.compile(r"flags: SemiAnalysisAI/InferenceX@([0-9a-f]+):(\S+?\.sh)")
CONFIG = re.compile(r"config ([a-z0-9]+)/([a-z-]+)/dsr1/(fp[48])/spec=(\w+)")
PREFILL_DPA = re.compile(r"prefill \d+ worker\(s\) TP\d+ EP\d+ DPA=(True|False)")


def git_show(git_dir, commit, path, cache={}):
    key = (commit, path)
    if key not in cache:
        r = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], capture_output=True, text=True)
        cache[key] = r.stdout if r.returncode == 0 else None
    return cache[key]


def sglang_spec_tokens(script):
    m = re.search(r"SPECULATIVE_NUM_STEPS=(\d+)", script) or re.search(r"--speculative-num-steps[ =](\d+)", script)
    return int(m.group(1)) if m else None


def trt_spec_tokens(script, dpa):
    """num_nextn_predict_layers: the scripts set MTP=K, in or outside an if on DP_ATTENTION=true (with an else)."""
    block = re.search(r'if \[\[ "\$DP_ATTENTION" == "true" \]\]; then(.*?)(?:\belse\b(.*?))?\bfi\b', script, re.S)
    then_k = re.search(r"MTP=(\d+)", block.group(1)) if block else None
    else_k = re.search(r"MTP=(\d+)", block.group(2)) if block and block.group(2) else None
    outside = re.search(r"^\s*MTP=(\d+)", script.replace(block.group(0), "") if block else script, re.M)
    if dpa and then_k:
        return int(then_k.group(1))
    if not dpa and else_k:
        return int(else_k.group(1))
    if outside:
        return int(outside.group(1))
    m = re.search(r"num_nextn_predict_layers: (\d+)", script)
    return int(m.group(1)) if m else None


class Unsupported(Exception):
    """The script refuses the row's setup (it exits) or uses a construct this reader does not follow."""


def _arith(expr, env):
    """$(( ... )): integer arithmetic with + - * / % < > <= >= == and a ? b : c."""
    e = re.sub(r"\$\{?(\w+)\}?", lambda m: str(env.get(m.group(1), 0)), expr)
    e = re.sub(r"\b([A-Z_][A-Z0-9_]*)\b", lambda m: str(env.get(m.group(1), 0)), e)
    m = re.fullmatch(r"\s*(.+?)\s*\?\s*(.+?)\s*:\s*(.+?)\s*", e)
    if m:
        return _arith(m.group(2), env) if eval(m.group(1).replace("/", "//"), {}) else _arith(m.group(3), env)
    return int(eval(e.replace("/", "//"), {}))


def _value(text, env):
    text = text.strip()
    if text.startswith("$((") and text.endswith("))"):
        return str(_arith(text[3:-2], env))
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    text = re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: env.get(m.group(1), m.group(2)), text)
    return re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""), text)


def _test(cond, env):
    """A test of [[ ]] / [ ]: atoms (-n X, -z X, A OP B with OP -eq -ne -ge -gt -le -lt == = != and glob
    patterns) joined by && (binding tighter) and ||; the brackets themselves group nothing here."""
    tokens = [t for t in re.findall(r'"[^"]*"|\[\[|\]\]|&&|\|\||[^\s\[\]]+|\[|\]', cond) if t not in ("[[", "]]", "[", "]")]
    ors, cur = [[]], []
    for t in tokens:
        if t == "||":
            ors[-1].append(cur)
            ors.append([])
            cur = []
        elif t == "&&":
            ors[-1].append(cur)
            cur = []
        else:
            cur.append(t)
    ors[-1].append(cur)

    def atom(w):
        if len(w) == 2 and w[0] in ("-n", "-z"):
            v = _value(w[1], env)
            return bool(v) if w[0] == "-n" else not v
        if len(w) == 1:
            return bool(_value(w[0], env))
        if len(w) != 3:
            raise Unsupported("condition " + cond)
        a, op, b = _value(w[0], env), w[1], w[2]
        if op in ("==", "=", "!="):
            pattern = b.replace('"', "")
            hit = fnmatch.fnmatchcase(a, _value(pattern, env)) if "*" in pattern else a == _value(b, env)
            return hit if op != "!=" else not hit
        ia, ib = int(a or 0), int(_value(b, env) or 0)
        return {"-eq": ia == ib, "-ne": ia != ib, "-ge": ia >= ib, "-gt": ia > ib, "-le": ia <= ib, "-lt": ia < ib}[op]

    return any(all(atom(w) for w in conj) for conj in ors)


def run_script(script, env):
    """Follows the script's assignments, if/elif/else/fi and heredocs for `env` (CONC, ISL, OSL, TP, EP_SIZE,
    DP_ATTENTION): returns the environment, the heredoc text and the server's launch command."""
    env = dict(env)
    lines, cur = [], ""
    for raw in script.split("\n"):
        if raw.rstrip().endswith("\\"):
            cur += raw.rstrip()[:-1] + " "
            continue
        lines.append(cur + raw)
        cur = ""
    stack, heredoc, config, launch = [], None, [], None
    active = lambda: all(s[0] for s in stack)
    for line in lines:
        t = line.strip()
        if heredoc is not None:
            if t == heredoc:
                heredoc = None
            elif active():
                config.append(_value(t, env))
            continue
        if not t or t.startswith("#"):
            continue
        m = re.match(r"cat\b.*<<\s*'?(\w+)'?", t)
        if m:
            heredoc = m.group(1)
            continue
        if re.match(r"if .*; then .*\bfi$", t):
            continue  # one-line ifs (downloads, logs): no setting
        m = re.match(r"(el)?if (.*); then$", t)
        if m:
            if m.group(1):
                taken = stack[-1][1]
                ok = not taken and all(s[0] for s in stack[:-1]) and _test(m.group(2), env)
                stack[-1] = (ok, taken or ok)
            else:
                ok = active() and _test(m.group(2), env)
                stack.append((ok, ok))
            continue
        if t == "else":
            stack[-1] = (not stack[-1][1] and all(s[0] for s in stack[:-1]), True)
            continue
        if t == "fi":
            stack.pop()
            continue
        if not active():
            continue
        if re.match(r"exit\b", t):
            raise Unsupported("the script exits for this setup")
        m = re.match(r"(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$", t)
        if m and " " not in m.group(2).strip().strip('"') or (m and m.group(2).startswith("$((")):
            env[m.group(1)] = _value(m.group(2), env)
            continue
        if "sglang.launch_server" in t or "trtllm-serve" in t:
            launch = _value(t, env)
            break  # the server is configured; the rest waits on it and runs the client
    return env, "\n".join(config), launch


def _flag(launch, *names):
    for n in names:
        m = re.search(r"--" + re.escape(n) + r"[ =]([^\s]+)", launch or "")
        if m:
            return m.group(1)
    return None


def engine_settings(framework, script, env):
    """max_num_seqs, max_num_batched_tokens, memory_fraction, scheduler_poll_steps as the script sets them."""
    env, config, launch = run_script(script, env)
    out = {}
    if framework == "sglang":
        out["max_num_seqs"] = _flag(launch, "max-running-requests")
        out["max_num_batched_tokens"] = _flag(launch, "chunked-prefill-size")
        out["memory_fraction"] = _flag(launch, "mem-fraction-static")
        poll = [int(x) for x in (_flag(launch, "scheduler-recv-interval"), _flag(launch, "num-continuous-decode-steps"))
                if x]
        out["scheduler_poll_steps"] = str(max(poll)) if poll else None
    else:
        out["max_num_seqs"] = _flag(launch, "max_batch_size")
        out["max_num_batched_tokens"] = _flag(launch, "max_num_tokens")
        m = re.search(r"free_gpu_memory_fraction:\s*([0-9.]+)", config)
        out["memory_fraction"] = m.group(1) if m else None
        # Iterations the scheduler may hold new context requests: batch_wait_timeout_iters (delayed batching)
        # and, under attention DP with enable_balance, attention_dp_config's timeout_iters.
        waits = [int(x) for x in re.findall(r"(?:batch_wait_timeout_iters|timeout_iters):\s*(\d+)", config)]
        out["scheduler_poll_steps"] = str(max(waits)) if waits else None
    return {k: v for k, v in out.items() if v}


def concs(entry):
    if "conc-list" in entry:
        return set(entry["conc-list"])
    lo, hi = entry.get("conc-start"), entry.get("conc-end")
    if lo is None:
        return set()
    out, c = set(), lo
    while c <= hi:  # the sweeps double from conc-start to conc-end
        out.add(c)
        c *= 2
    return out


def trt_dp_attention(git_dir, commit, gpu, prec, spec, isl, osl, tp, ep, conc):
    text = git_show(git_dir, commit, ".github/configs/nvidia-master.yaml")
    if text is None:
        return None
    cfg = yaml.safe_load(text)
    name = f"dsr1-{prec}-{gpu}-trt" + ("-mtp" if spec == "mtp" else "")
    if name not in cfg:
        return None
    blocks = []  # (isl, osl, search-space): newer configs under scenarios, older under seq-len-configs
    for sc in cfg[name].get("scenarios", {}).values():
        blocks += sc
    blocks += cfg[name].get("seq-len-configs", [])
    found, found_any_ep = set(), set()
    for s in blocks:
        if s.get("isl") != isl or s.get("osl") != osl:
            continue
        for e in s.get("search-space", []):
            if e.get("tp") == tp and conc in concs(e):
                found_any_ep.add(bool(e.get("dp-attn", False)))
                if e.get("ep", 1) == ep:
                    found.add(bool(e.get("dp-attn", False)))
    if not found:  # some rows' ep differs from their config's ("EP=TP" sweeps recorded with ep 1)
        found = found_any_ep
    return found.pop() if len(found) == 1 else None


def main():
    shared, git_dir = sys.argv[1], sys.argv[2]
    lines = open(shared).read().split("\n")
    out = []
    header = None
    for line in lines:
        if not line or line.startswith("#"):
            out.append(line)
            continue
        f = line.split("\t")
        if header is None:
            header = f
            col = {n: i for i, n in enumerate(header)}
            out.append("# Columns spec_tokens, prefill_dp_attention and layout_source added, and empty dp_attention")
            out.append("# cells filled, by scripts/layouts_from_inferencex.py from the InferenceX benchmark script and")
            out.append("# sweep config each row cites (layout_source says which).")
            out.append("\t".join(f + ["spec_tokens", "prefill_dp_attention", "max_num_seqs", "max_num_batched_tokens",
                                       "memory_fraction", "scheduler_poll_steps", "layout_source"]))
            continue
        get = lambda n: f[col[n]]
        notes = get("notes")
        said = []
        spec_tokens, prefill_dpa = "", ""
        settings = {}
        fl, cf = FLAGS.search(notes), CONFIG.search(notes)
        if get("layout") == "disaggregated":
            m = PREFILL_DPA.search(notes)
            if m:
                prefill_dpa = m.group(1).lower()
                said.append("prefill_dp_attention: the notes' prefill pool (DPA=" + m.group(1) + ")")
        if fl and cf and get("layout") == "aggregated":
            commit, path = fl.group(1), fl.group(2)
            gpu, framework, prec, spec = cf.groups()
            script = git_show(git_dir, commit, path)
            where = f"SemiAnalysisAI/InferenceX@{commit}:{path}"
            if script is not None:
                if get("dp_attention") == "":
                    dpa = None
                    if framework == "sglang":
                        dpa = "enable-dp-attention" in script
                        why = where + (" passes --enable-dp-attention" if dpa else " passes no --enable-dp-attention")
                    elif framework == "trt":
                        conc = int(get("load").split("=")[1])
                        dpa = trt_dp_attention(git_dir, commit, gpu, prec, spec, int(get("isl")), int(get("osl")),
                                               int(get("tp")), int(get("ep")), conc)
                        why = (f"SemiAnalysisAI/InferenceX@{commit}:.github/configs/nvidia-master.yaml "
                               f"(the search-space entry of tp {get('tp')}, ep {get('ep')}, concurrency {conc})")
                    if dpa is not None:
                        f[col["dp_attention"]] = "true" if dpa else "false"
                        said.append(f"dp_attention: {why}")
                env = {"CONC": get("load").split("=")[1], "ISL": get("isl"), "OSL": get("osl"), "TP": get("tp"),
                       "EP_SIZE": get("ep"), "DP_ATTENTION": get("dp_attention") or "false", "RANDOM_RANGE_RATIO": "0.8"}
                try:
                    settings = engine_settings(framework, script, env)
                    if settings:
                        said.append(", ".join(sorted(settings)) + f": {where} as run for this row's tp, ep, "
                                    "concurrency and lengths")
                except Unsupported as e:
                    said.append(f"engine settings not read: {where}: {e}")
                if spec == "mtp":
                    dpa = get("dp_attention") == "true"
                    k = sglang_spec_tokens(script) if framework == "sglang" else trt_spec_tokens(script, dpa)
                    if k is not None:
                        spec_tokens = str(k)
                        said.append(f"spec_tokens: {where}")
        cols = [settings.get(k, "") for k in ("max_num_seqs", "max_num_batched_tokens", "memory_fraction",
                                               "scheduler_poll_steps")]
        out.append("\t".join(f + [spec_tokens, prefill_dpa] + cols + ["; ".join(said)]))
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
