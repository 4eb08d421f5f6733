// modelcalc exercises: drill 1's model calculated, as the seed's
// `make run-exercises` does, plus its "check your work" variants.
#include <fmt/format.h>
#include <memory>

#include "commands.h"
#include "drills.h"
#include "format.h"
#include "inputs.h"
#include "modelcalc/size.h"
#include "size_report.h"

namespace modelcalc {

namespace {


Status run_exercises(const OutputFlags& out_flags, std::ostream& out) {
  const ModelSpec m = drill1_model();
  auto mi300x = find_gpu("mi300x");
  auto h100 = find_gpu("h100");
  if (!mi300x.ok()) return mi300x.status();
  if (!h100.ok()) return h100.status();
  SizeOptions o;
  o.context = 8192;                             // drill 1 spells out its context
  o.weight_dtype = o.kv_dtype = Dtype::kFp16;  // and its dtype
  o.train_tokens = 1.5e12;
  auto r = analyze_size(m, *mi300x, o);
  if (!r.ok()) return r.status();
  Report rep = build_size_report(m, *mi300x, o, *r);
  rep.title = "Drill 1 — size a model from its spec (modelcalc -L 48 -d 6144 --heads 48 --kv-heads 8 --ffn 16384 "
              "--glu --vocab 64000 --seq 8192 --train-tokens 1.5T --gpu mi300x)\n" + rep.title;

  // Check your work: the seed's --dtype int8, --gpu h100 and --kv-heads 48 runs.
  SizeOptions int8 = o;
  int8.weight_dtype = Dtype::kInt8;
  int8.kv_dtype = Dtype::kInt8;
  auto r_int8 = analyze_size(m, *mi300x, int8);
  auto r_h100 = analyze_size(m, *h100, o);
  ModelSpec mha = as_mha(m);
  auto r_mha = analyze_size(mha, *mi300x, o);
  if (!r_int8.ok() || !r_h100.ok() || !r_mha.ok()) return Status::InvalidArgument("exercises", "variant failed");
  Section check{"Check your work (the seed's variant runs)", {}, {}};
  check.lines.push_back(
      given("check.int8.weights_bytes", "--dtype int8: weights (2b)", r_int8->weight_bytes, Unit::kBytes));
  check.lines.push_back(given("check.int8.tokens_per_s_weights_only", "--dtype int8: MI300X ceiling (5c)",
                              r_int8->tokens_per_s_weights_only, Unit::kTokensPerS,
                              "(half the bytes, twice the tokens/s)"));
  check.lines.push_back(given("check.h100.tokens_per_s_weights_only", "--gpu h100: ceiling (5d)",
                              r_h100->tokens_per_s_weights_only, Unit::kTokensPerS, "(set by HBM bandwidth alone)"));
  check.lines.push_back(given("check.mha.kv_bytes_per_sequence", "--kv-heads 48: KV per sequence (4c)",
                              r_mha->kv_per_seq, Unit::kBytes,
                              fmt::format("(×{} the GQA cache)", fmt_sig(r->kv_mha_ratio))));
  rep.sections.push_back(std::move(check));
  emit(rep, out_flags, out);
  return Status::Ok();
}

}  // namespace

CommandRun setup_exercises(FlagSet& flags) {
  auto f = std::make_shared<OutputFlags>();
  add_output_flags(flags, f.get());
  return [f](std::ostream& out) { return run_exercises(*f, out); };
}

}  // namespace modelcalc
