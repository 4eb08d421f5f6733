// The field declarations and tables (field.h, fields.h, table.h): parsing
// from each front end's form, ranges, lists, and a table's binding.
#include "modelcalc/app/field.h"

#include <gtest/gtest.h>

#include <vector>

#include "modelcalc/app/fields.h"
#include "modelcalc/app/requests.h"

namespace modelcalc::app {
namespace {

TEST(Field, CountsTakeSuffixesAndStayInRange) {
  auto v = parse_text(fields::kContext, "8K", false);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(std::get<int64_t>(*v), 8000);  // K is decimal
  auto big = parse_text(fields::kContext, "2G", false);  // 2e9 > 2^30 = 1,073,741,824
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(), "context: must be at most 1,073,741,824, got 2G");
  EXPECT_FALSE(from_int(fields::kGpus, 0).ok());
  EXPECT_FALSE(from_number(fields::kBatch, 2.5).ok());  // a count is whole
  EXPECT_EQ(std::get<int64_t>(*from_number(fields::kBatch, 8e3)), 8000);
}

TEST(Field, ABareDurationIsSeconds) {
  auto tpot = parse_text(fields::kTpot, "0.05", false);
  ASSERT_TRUE(tpot.ok());
  EXPECT_DOUBLE_EQ(std::get<double>(*tpot), 0.05);
  EXPECT_DOUBLE_EQ(std::get<double>(*parse_text(fields::kTpot, "50ms", false)), 0.05);
  // 50 is 50 s per token: more than the 10 s a TPOT can plausibly be, refused with the hint.
  auto fifty = parse_text(fields::kTpot, "50", false);
  ASSERT_FALSE(fifty.ok());
  EXPECT_NE(fifty.status().message().find("a bare duration is seconds"), std::string::npos);
  EXPECT_FALSE(from_number(fields::kTpot, 50).ok());  // Python's 50 alike
  EXPECT_TRUE(from_number(fields::kTtft, 0.5).ok());
}

TEST(Field, ListsOfCountsTakeRanges) {
  auto v = parse_text(fields::kBatch, "1:8:x2,64", true);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(std::get<std::vector<int64_t>>(*v), (std::vector<int64_t>{1, 2, 4, 8, 64}));
  EXPECT_FALSE(parse_text(fields::kBatch, "1,,8", true).ok());
  auto d = parse_text(fields::kDtype, "fp16,int8", true);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(std::get<std::vector<Dtype>>(*d), (std::vector<Dtype>{Dtype::kFp16, Dtype::kInt8}));
}

TEST(Field, ChoicesAndSwitches) {
  EXPECT_EQ(std::get<std::string>(*parse_text(fields::kEngine, "TensorRT-LLM", false)), "trtllm");
  EXPECT_FALSE(parse_text(fields::kRankBy, "cheapest", false).ok());
  EXPECT_TRUE(std::get<bool>(*parse_text(fields::kDpAttention, "", false)));  // a bare web key
  EXPECT_FALSE(std::get<bool>(*parse_text(fields::kDpAttention, "0", false)));
  EXPECT_FALSE(parse_text(fields::kKvDtype, "nvfp4", false).ok());  // the KV formulas do not count scale groups
}

TEST(Field, EveryFieldIsDeclaredOnceUnderItsOwnName) {
  for (const Field* f : all_fields()) {
    EXPECT_EQ(find_field(f->name), f) << f->name;
    for (char c : f->name) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << f->name;
    EXPECT_FALSE(f->help.empty()) << f->name;
    if (f->type == Type::kInt) {
      EXPECT_GT(f->max, 0) << f->name << " needs a range";
    }
  }
}

TEST(Table, RowsSetAndReadTheirMembers) {
  SizeRequest r;
  const Table& t = SizeRequest::table();
  const Row* seq = t.find("seq");  // the CLI's spelling finds the field
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(seq->field, &fields::kContext);
  seq->set(&r, Value{int64_t{4096}});
  EXPECT_EQ(r.dep.context, 4096);
  Value back;
  ASSERT_TRUE(seq->get(&r, &back));
  EXPECT_EQ(std::get<int64_t>(back), 4096);
  const Row* tbo = t.find("two_batch_overlap");
  ASSERT_NE(tbo, nullptr);
  EXPECT_FALSE(tbo->get(&r, &back));  // a switch not given
  tbo->set(&r, Value{true});
  EXPECT_TRUE(r.layout.two_batch_overlap);
  const Row* imbalance = t.find("expert_imbalance");
  ASSERT_NE(imbalance, nullptr);
  EXPECT_FALSE(imbalance->list);
  const Row* batches = PlanRequest::table().find("batch");
  ASSERT_NE(batches, nullptr);
  EXPECT_TRUE(batches->list);  // plan searches a list of batches
}

TEST(Table, EachTableNamesAFieldOnce) {
  for (const Table* t : {&SizeRequest::table(), &KvBudgetRequest::table(), &CostRequest::table(),
                         &DiagnoseRequest::table(), &RooflineRequest::table(), &PlanRequest::table(),
                         &SweepRequest::table()}) {
    for (size_t i = 0; i < t->rows.size(); ++i) {
      for (size_t j = 0; j < i; ++j) EXPECT_NE(t->rows[i].field, t->rows[j].field) << t->command << " " << t->rows[i].field->name;
    }
  }
}

// Every table that reads a model takes each of its sources (a preset, a config.json, a checkpoint folder), all
// three file-or-name fields declared once (fields.h); the checkpoint binds where config does.
TEST(Table, EveryModelReadingTableTakesACheckpoint) {
  int tables = 0;
  std::vector<const Table*> all(all_tables().begin(), all_tables().end());
  all.push_back(&model_table());
  for (const Table* t : all) {
    const Row* config = t->find("config");
    const Row* checkpoint = t->find("checkpoint");
    ASSERT_NE(t->find("model"), nullptr) << t->command;  // each of these commands reads a model
    ASSERT_NE(config, nullptr) << t->command;
    ASSERT_NE(checkpoint, nullptr) << t->command;
    EXPECT_EQ(checkpoint->field, &fields::kCheckpoint);
    EXPECT_TRUE(checkpoint->field->file);  // the web refuses it, as it refuses config
    EXPECT_EQ(checkpoint->list, config->list) << t->command;  // sweep: a list of each
    ++tables;
  }
  EXPECT_EQ(tables, 8);  // size, sweep, plan, kv-budget, diagnose, roofline, cost; the model table
  ModelInput m;
  model_table().find("checkpoint")->set(&m, Value{std::string("ckpt")});
  EXPECT_EQ(m.checkpoint, "ckpt");
  EXPECT_TRUE(m.given());
}

// Every "--flag" a command's --help mentions (a row's help or default) that is a field's spelling is one the
// command takes or says it decides itself: roofline's --ep once said "with --dp-attention ...", which roofline
// does not take.
TEST(Table, HelpMentionsOnlyFlagsTheCommandTakes) {
  auto is_flag_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; };
  int mentions = 0;
  for (const Table* t : all_tables()) {
    for (const Row& row : t->rows) {
      for (std::string_view text : {row.help_or_field(), row.default_or_field()}) {
        for (size_t i = text.find("--"); i != std::string_view::npos; i = text.find("--", i + 2)) {
          size_t j = i + 2;
          while (j < text.size() && is_flag_char(text[j])) ++j;
          while (j > i + 2 && text[j - 1] == '-') --j;
          const std::string_view flag = text.substr(i + 2, j - i - 2);
          bool a_field = false;
          for (const Field* f : all_fields()) a_field = a_field || f->flag == flag;
          if (!a_field) continue;  // --json, --help, ...: not a field
          ++mentions;
          EXPECT_TRUE(t->find(flag) != nullptr || t->find_decided(flag) != nullptr)
              << t->command << " --" << row.field->flag << " mentions --" << flag << ": " << text;
        }
      }
    }
  }
  EXPECT_GT(mentions, 20);  // the walk sees the mentions there are
}

// plan decides its split and DP attention itself: each such field has a reason and no row.
TEST(Table, PlanSaysWhatItDecidesItself) {
  const Table& t = PlanRequest::table();
  for (std::string_view name : {"dp-attention", "dp_attention", "tp", "pp", "dp", "gpus", "seq", "context"}) {
    const Decided* d = t.find_decided(name);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_FALSE(d->reason.empty()) << name;
    EXPECT_EQ(t.find(name), nullptr) << name;
  }
  EXPECT_EQ(t.find_decided("isl"), nullptr);  // a field plan takes is not decided
}

}  // namespace
}  // namespace modelcalc::app
