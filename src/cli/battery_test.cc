// The bad-input battery (issue #39), generated from the request tables: every
// field of every command with a typed request, given a value its declaration
// (type, range, choices) rules out, is refused in one line naming the field
// as each front end spells it: the CLI exits 2 with "modelcalc: error:
// --flag: ..." and nothing on stdout; the web answers 400 {"error": "key: ..."}.
// Python's InputError is python/tests/test_modelcalc.py's battery, over the
// same tables (modelcalc._field_table). A new field joins the battery by its
// table row.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "http_server.h"
#include "modelcalc/app/requests.h"
#include "test_util.h"
#include "web_api.h"

namespace modelcalc {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// A valid request of each command, by canonical field names: the battery
// changes one field at a time.
const std::map<std::string, Pairs>& bases() {
  static const std::map<std::string, Pairs> b = {
      {"size", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}}},
      {"kv-budget", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}}},
      {"cost", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"price_per_hour", "2"}}},
      {"diagnose", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"tokens_per_s", "20"}}},
      {"roofline", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}}},
      {"plan", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"isl", "512"}, {"osl", "128"}, {"max_gpus", "8"}}},
      {"sweep", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"seq", "4096"}}},
  };
  return b;
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Values `f` rules out by its declaration alone, whatever the other fields:
// text that is not of its type, and numbers outside [min, max].
std::vector<std::string> bad_values(const app::Field& f) {
  using app::Type;
  switch (f.type) {
    case Type::kBool:
    case Type::kText:
      return {};  // a switch takes no value on the CLI; a name's validity is the command's (tested elsewhere)
    case Type::kChoice:
      return {"no-such-choice"};
    case Type::kDtype:
      return {"fp13"};
    case Type::kRange:
      return {"abc", "15-8"};  // not a range; lo above hi
    case Type::kInt:
    case Type::kReal:
      break;
  }
  std::vector<std::string> v = {"abc", "1e400", "nan", "inf", "-inf"};
  // Below the minimum (when it is not unbounded below), above the maximum.
  if (f.min > -1e300) v.push_back(number(f.min_open ? f.min : f.min - std::max(1.0, std::fabs(f.min))));
  if (f.max > 0 && f.max < 1e300) v.push_back(number(f.max * 4 + 4));
  if (f.type == Type::kInt) v.push_back("1.5");
  return v;
}

// The web's refusal {"error": "key: ..."} names `key` first.
bool error_names(const std::string& body, const std::string& key) {
  if (!nlohmann::json::accept(body)) return false;
  const nlohmann::json j = nlohmann::json::parse(body);
  return j.is_object() && j.size() == 1 && j.contains("error") && j["error"].is_string() &&
         j["error"].get<std::string>().rfind(key + ": ", 0) == 0;
}

// Every (command, field, value) of the battery, with the base request.
struct Case {
  const app::Table* table;
  const app::Row* row;
  std::string value;
};

std::vector<Case> battery() {
  std::vector<Case> cases;
  for (const app::Table* t : app::all_tables()) {
    for (const app::Row& row : t->rows) {
      if (row.positional || row.field->file) continue;
      for (const std::string& v : bad_values(*row.field)) cases.push_back({t, &row, v});
      if (row.list) {
        for (const std::string& v : bad_values(*row.field)) cases.push_back({t, &row, "1," + v});
      }
    }
  }
  return cases;
}

TEST(BatteryTest, EveryCommandHasABaseRequestThatIsAnswered) {
  for (const app::Table* t : app::all_tables()) {
    const auto it = bases().find(std::string(t->command));
    ASSERT_NE(it, bases().end()) << t->command << " has no base request here";
    std::vector<std::string> args = {std::string(t->command)};
    for (const auto& [k, v] : it->second) {
      const app::Row* row = t->find(k);
      ASSERT_NE(row, nullptr) << t->command << " " << k;
      args.push_back("--" + std::string(row->field->flag));
      args.push_back(v);
    }
    const CliRun r = run_args(args);
    EXPECT_EQ(r.status, 0) << show(args) << "\n" << r.err;
  }
}

TEST(BatteryTest, TheBatteryCoversEveryTypedFieldOfEveryCommand) {
  // A count that cannot fail silently: each command contributes, and more cases than tables x 5.
  const std::vector<Case> cases = battery();
  std::map<std::string_view, int> per_command;
  for (const Case& c : cases) ++per_command[c.table->command];
  EXPECT_EQ(per_command.size(), app::all_tables().size());
  EXPECT_GT(cases.size(), 35u * app::all_tables().size());
}

TEST(BatteryTest, TheCliRefusesEachBadValueInOneLineNamingTheFlag) {
  int failures = 0;
  for (const Case& c : battery()) {
    std::vector<std::string> args = {std::string(c.table->command)};
    for (const auto& [k, v] : bases().at(std::string(c.table->command))) {
      if (k == c.row->field->name) continue;
      args.push_back("--" + std::string(c.table->find(k)->field->flag));
      args.push_back(v);
    }
    const std::string flag = "--" + std::string(c.row->field->flag);
    args.push_back(flag + "=" + c.value);
    const CliRun r = run_args(args);
    const bool ok = r.status == 2 && r.out.empty() && line_count(r.err) == 1 &&
                    r.err.rfind("modelcalc: error: " + flag + ": ", 0) == 0;
    EXPECT_TRUE(ok) << show(args) << "\nexit " << r.status << "\nstdout " << r.out.substr(0, 200) << "\nstderr "
                    << r.err;
    if (!ok && ++failures > 20) return;  // enough to read
  }
}

TEST(BatteryTest, TheWebRefusesEachBadValueWith400NamingTheKey) {
  int failures = 0;
  for (const Case& c : battery()) {
    HttpRequest req;
    req.path = "/api/" + std::string(c.table->command);
    for (const auto& [k, v] : bases().at(std::string(c.table->command))) {
      if (k != c.row->field->name) req.query.emplace_back(k, v);
    }
    const std::string key(c.row->field->name);
    req.query.emplace_back(key, c.value);
    const HttpResponse r = handle_web_request(req);
    const bool ok = r.status == 400 && line_count(r.body) == 1 && error_names(r.body, key);
    EXPECT_TRUE(ok) << req.path << " " << key << "=" << c.value << "\n" << r.status << " " << r.body;
    if (!ok && ++failures > 20) return;
  }
}

TEST(BatteryTest, TheWebRefusesASwitchThatIsNeitherTrueNorFalse) {
  for (const app::Table* t : app::all_tables()) {
    for (const app::Row& row : t->rows) {
      if (row.field->type != app::Type::kBool) continue;
      HttpRequest req;
      req.path = "/api/" + std::string(t->command);
      req.query = bases().at(std::string(t->command));
      req.query.emplace_back(std::string(row.field->name), "maybe");
      const HttpResponse r = handle_web_request(req);
      EXPECT_EQ(r.status, 400) << t->command << " " << row.field->name << ": " << r.body;
      EXPECT_TRUE(error_names(r.body, std::string(row.field->name))) << r.body;
    }
  }
}

}  // namespace
}  // namespace modelcalc
