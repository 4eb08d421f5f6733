// serve_args: the web API's query -> argument mapping and its refusals,
// without sockets (serve_test.cc drives the server itself).
#include "serve_args.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>

#include "commands.h"
#include "flags.h"
#include "test_util.h"

namespace modelcalc {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;
using Args = std::vector<std::string>;

Args ok_args(std::string_view command, const Params& p, ServeOutput o = ServeOutput::kJson) {
  auto r = serve_args(command, p, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Args{};
}

std::string error_of(std::string_view command, const Params& p, ServeOutput o = ServeOutput::kJson) {
  auto r = serve_args(command, p, o);
  EXPECT_FALSE(r.ok()) << command;
  return r.ok() ? std::string() : r.status().message();
}

TEST(ServeArgsTest, KeysBecomeFlagsAsThePythonPackageMapsThem) {
  // _ for -, one letter the short flag (here written as its long name, the same flag), true a bare switch.
  EXPECT_EQ(ok_args("size", {{"model", "llama-3.1-8b"}, {"kv_heads", "8"}, {"L", "48"}, {"d", "6144"},
                             {"glu", "true"}, {"tied", "false"}}),
            (Args{"size", "--model=llama-3.1-8b", "--kv-heads=8", "--layers=48", "--hidden=6144", "--glu", "--json"}));
  // A hyphenated key is the same flag; values go through as typed.
  EXPECT_EQ(ok_args("size", {{"kv-dtype", "fp8"}, {"seq", "8K"}}),
            (Args{"size", "--kv-dtype=fp8", "--seq=8K", "--json"}));
  // sweep's structured output is --format json, as in Python.
  EXPECT_EQ(ok_args("sweep", {{"gpu", "h100,mi300x"}}), (Args{"sweep", "--gpu=h100,mi300x", "--format=json"}));
  // The text endpoint adds nothing, and passes --explain, --format and --help.
  EXPECT_EQ(ok_args("size", {{"model", "x"}, {"explain", "true"}}, ServeOutput::kText),
            (Args{"size", "--model=x", "--explain"}));
  EXPECT_EQ(ok_args("sweep", {{"format", "csv"}}, ServeOutput::kText), (Args{"sweep", "--format=csv"}));
  EXPECT_EQ(ok_args("plan", {{"h", "true"}}, ServeOutput::kText), (Args{"plan", "--help"}));
  // A value that looks like a flag stays that flag's value: one argument, "--flag=value".
  EXPECT_EQ(ok_args("size", {{"model", "--config"}}), (Args{"size", "--model=--config", "--json"}));
  EXPECT_EQ(ok_args("models", {}), (Args{"models", "--json"}));
}

TEST(ServeArgsTest, TheMappedArgumentsGiveTheCommandLinesAnswer) {
  // One engine: the web API's arguments and the command line's give the same document.
  const CliRun web = run_args(ok_args("size", {{"model", "llama-3.1-8b"}, {"gpu", "h100"}, {"kv_dtype", "fp8"}}));
  const CliRun cli = run_args({"size", "--model", "llama-3.1-8b", "--gpu", "h100", "--kv-dtype", "fp8", "--json"});
  ASSERT_EQ(web.status, 0) << web.err;
  EXPECT_EQ(web.out, cli.out);
  // An empty value ("?seq" or "seq=") is refused here with the line the CLI gives "--seq ''", before
  // it could reach CLI11 as "--seq=", which would take the next argument as its value.
  const CliRun empty = run_args({"size", "--model", "llama-3.1-8b", "--seq", "", "--json"});
  EXPECT_EQ(empty.status, 2);
  EXPECT_EQ(empty.err, "modelcalc: error: " + error_of("size", {{"model", "llama-3.1-8b"}, {"seq", ""}}) + "\n");
  EXPECT_EQ(error_of("size", {{"L", ""}}), "--layers: needs a value, got an empty string");
}

TEST(ServeArgsTest, ThePictureAndPageEndpointsAddTheirOwnOutputFlag) {
  EXPECT_EQ(ok_args("roofline", {{"gpu", "h100"}}, ServeOutput::kSvg), (Args{"roofline", "--gpu=h100", "--plot=-"}));
  EXPECT_EQ(ok_args("plan", {{"isl", "1"}}, ServeOutput::kSvg), (Args{"plan", "--isl=1", "--plot=-"}));
  EXPECT_EQ(ok_args("size", {{"model", "x"}}, ServeOutput::kHtml), (Args{"size", "--model=x", "--report=-"}));
  EXPECT_EQ(serve_args("size", {}, ServeOutput::kSvg).status().code(), Status::Code::kNotFound);
  EXPECT_EQ(serve_args("roofline", {}, ServeOutput::kHtml).status().code(), Status::Code::kNotFound);
  EXPECT_NE(error_of("roofline", {{"json", "true"}}, ServeOutput::kSvg).find("is chosen by the endpoint"),
            std::string::npos);
}

TEST(ServeArgsTest, EveryFileFlagIsRefusedNamingIt) {
  int files = 0;
  for (const ServeFlagRule& r : serve_flag_rules()) {
    if (r.kind != ServeFlagKind::kFile) continue;
    ++files;
    for (ServeOutput o : {ServeOutput::kJson, ServeOutput::kText}) {
      for (std::string key : {std::string(r.name), [&] {
                                std::string k(r.name);
                                std::replace(k.begin(), k.end(), '-', '_');
                                return k;
                              }()}) {
        const std::string e = error_of("size", {{"model", "llama-3.1-8b"}, {key, "/etc/passwd"}}, o);
        EXPECT_EQ(e.rfind("--" + std::string(r.name) + ": names a file on the server", 0), 0u) << e;
      }
    }
  }
  // --checkpoint, --compare, --config, --count, --data, --draft-model, --lens-file, --plot, --profile, --report,
  // --write
  // (the table's comments say what each reads or writes).
  EXPECT_EQ(files, 11);
}

TEST(ServeArgsTest, SearchSizesOverTheWebAreCappedNamingTheKey) {
  const auto check = [](std::string_view command, Params p) { return check_serve_query(command, p, ServeOutput::kJson); };
  // At the cap: passed on (the command checks the rest); one past it, or a suffix spelling past it, refused.
  EXPECT_TRUE(check("train-plan", {{"max_gpus", "65536"}}).ok());
  for (const char* v : {"65537", "1048576", "1M", "66K"}) {  // 1M = 1,000,000; 66K = 66,000 (parse_count: K = 10^3) > 65,536
    const Status s = check("train-plan", {{"max_gpus", v}});
    ASSERT_FALSE(s.ok()) << v;
    EXPECT_NE(s.message().find("max_gpus"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("at most 65536"), std::string::npos) << s.message();
  }
  // The key as typed, with '-' for '_'.
  const Status dashed = check("train-plan", {{"max-tp", "1024"}});
  ASSERT_FALSE(dashed.ok());
  EXPECT_NE(dashed.message().find("max-tp"), std::string::npos) << dashed.message();
  EXPECT_FALSE(check("plan", {{"max_gpus", "4097"}}).ok());
  EXPECT_TRUE(check("plan", {{"max_gpus", "4096"}}).ok());
  // Another command's key of the same name is not capped here; a value that is no count is the command's to refuse.
  EXPECT_TRUE(check("size", {{"max_gpus", "1048576"}}).ok());
  EXPECT_TRUE(check("train-plan", {{"max_gpus", "lots"}}).ok());
}

TEST(ServeArgsTest, RefusesWhatTheApiDoesNotPass) {
  EXPECT_EQ(error_of("serve", {}), "serve: is not available over the web API (it is the server itself)");
  EXPECT_EQ(serve_args("serve", {}, ServeOutput::kJson).status().code(), Status::Code::kNotFound);
  EXPECT_EQ(serve_args("nosuch", {}, ServeOutput::kJson).status().code(), Status::Code::kNotFound);
  EXPECT_NE(error_of("nosuch", {}).find("unknown command 'nosuch'"), std::string::npos);
  EXPECT_NE(error_of("", {}).find("unknown command"), std::string::npos);
  EXPECT_EQ(error_of("size", {{"nosuch", "1"}}).rfind("--nosuch: is not a flag the web API passes", 0), 0u);
  EXPECT_EQ(error_of("size", {{"x", "1"}}).rfind("-x: is not a flag", 0), 0u);  // no short flag -x
  EXPECT_NE(error_of("size", {{"--model", "x"}}).find("is not a flag name"), std::string::npos);
  EXPECT_NE(error_of("size", {{"", "x"}}).find("is not a flag name"), std::string::npos);
  EXPECT_NE(error_of("size", {{"a=b", "x"}}).find("is not a flag name"), std::string::npos);
  // A switch takes true or false only: "glu=evidence.json" must not become a positional (a file).
  EXPECT_EQ(error_of("diagnose", {{"glu", "evidence.json"}}), "--glu: is a switch: give true or false, got 'evidence.json'");
  EXPECT_EQ(error_of("diagnose", {{"json", "x.json"}}, ServeOutput::kText).rfind("--json: is a switch", 0), 0u);
  // The JSON endpoint chooses the output.
  for (const char* k : {"json", "format", "help", "h"}) {
    EXPECT_NE(error_of("size", {{k, "true"}}).find("is chosen by the endpoint"), std::string::npos) << k;
  }
}

TEST(ServeArgsTest, LimitsTheQuery) {
  Params many(kServeMaxParams + 1, {"seq", "1"});
  EXPECT_EQ(error_of("size", many), "query: at most 64 parameters, got 65");
  Params fits(kServeMaxParams, {"seq", "1"});
  EXPECT_TRUE(serve_args("size", fits, ServeOutput::kJson).ok());
  // 4096 bytes of keys and values: "model" (5) + 4091 bytes fits, one more does not.
  EXPECT_TRUE(serve_args("size", {{"model", std::string(4091, 'a')}}, ServeOutput::kJson).ok());
  EXPECT_EQ(error_of("size", {{"model", std::string(4092, 'a')}}), "query: at most 4096 bytes of keys and values, got 4097");
}

// Every flag of every command, as CLI11 holds it: long names (or a
// positional's name), short names, whether it takes a value, its help.
struct Declared {
  std::string command, name, help;
  std::vector<std::string> shorts;
  bool positional = false, takes_value = true;
};

std::vector<Declared> declared_flags() {
  std::vector<Declared> out;
  CLI::App app;
  std::vector<std::unique_ptr<FlagSet>> sets;
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    sets.push_back(std::make_unique<FlagSet>(*sub));
    c.setup(*sets.back());
    for (const CLI::Option* o : sub->get_options()) {
      Declared d;
      d.command = c.name;
      d.help = o->get_description();
      d.takes_value = o->get_expected_max() != 0;
      d.shorts = o->get_snames();
      if (o->get_lnames().empty()) {
        d.positional = true;
        d.name = o->get_name();
        out.push_back(d);
      }
      for (const std::string& l : o->get_lnames()) {  // an alias (--context) is another long name
        d.name = l;
        out.push_back(d);
      }
    }
  }
  return out;
}

// A future flag cannot slip through: every flag of every command the API
// serves must be in serve_flag_rules() (a flag that is not is refused, and
// this test fails until someone classifies it), classified as it is declared.
TEST(ServeArgsTest, EveryCommandsEveryFlagIsClassified) {
  const std::vector<Declared> flags = declared_flags();
  ASSERT_GT(flags.size(), 250u);
  std::set<std::string> declared_names;
  for (const Declared& d : flags) {
    if (d.command == "serve") continue;  // refused as a whole
    SCOPED_TRACE(d.command + " " + d.name);
    if (d.positional) {
      // Positionals (diagnose's evidence file, tradeoff's candidates file) are
      // never produced: every argument after the command starts with "--".
      EXPECT_EQ(find_serve_flag(d.name), nullptr);
      continue;
    }
    declared_names.insert(d.name);
    const ServeFlagRule* rule = find_serve_flag(d.name);
    ASSERT_NE(rule, nullptr) << "classify this flag in serve_args.cc's kRules (kFile if it reads or writes a file)";
    const bool is_switch = rule->kind == ServeFlagKind::kSwitch ||
                           (rule->kind == ServeFlagKind::kOutput && rule->name != "format");
    EXPECT_EQ(is_switch, !d.takes_value) << "a switch must be kSwitch (true/false), a valued flag kValue";
    for (const std::string& s : d.shorts) {
      ASSERT_EQ(s.size(), 1u);
      EXPECT_EQ(rule->short_name, s[0]) << "the table's short spelling differs from the declaration";
    }
    if (d.shorts.empty()) {
      EXPECT_EQ(rule->short_name, 0);
    }
    // A flag the API passes whose help mentions a file, folder or path, or
    // writing, is most likely a file flag classified by mistake.
    if (rule->kind != ServeFlagKind::kFile) {
      std::string help = d.help;
      std::transform(help.begin(), help.end(), help.begin(), [](unsigned char c) { return std::tolower(c); });
      for (const char* word : {"file", "folder", "path", "director", "write", "save"}) {
        EXPECT_EQ(help.find(word), std::string::npos) << "help mentions '" << word << "': " << d.help;
      }
    }
  }
  // No stale rows: every rule is a flag some command declares.
  for (const ServeFlagRule& r : serve_flag_rules()) {
    EXPECT_TRUE(declared_names.count(std::string(r.name))) << r.name << " is in kRules but no command declares it";
  }
}

// Whatever the query, the arguments are the command, then only "--name" or
// "--name=value" of a flag the table passes: nothing CLI11 could read as a
// positional or as another flag.
TEST(ServeArgsTest, EveryArgumentIsOnePassedFlag) {
  const Params hostile = {{"model", "a b"}, {"seq", "-L"}, {"gpu", "--config=/etc/passwd"}, {"L", "1"},
                          {"explain", "true"}, {"glu", "false"}, {"batch", "evidence.json"}};
  for (ServeOutput o : {ServeOutput::kJson, ServeOutput::kText}) {
    const Args a = ok_args("diagnose", hostile, o);
    ASSERT_GE(a.size(), 2u);
    EXPECT_EQ(a[0], "diagnose");
    for (size_t i = 1; i < a.size(); ++i) {
      ASSERT_EQ(a[i].rfind("--", 0), 0u) << a[i];
      const std::string name = a[i].substr(2, a[i].find('=') - 2);
      const ServeFlagRule* rule = find_serve_flag(name);
      ASSERT_NE(rule, nullptr) << a[i];
      EXPECT_NE(rule->kind, ServeFlagKind::kFile) << a[i];
    }
  }
}

}  // namespace
}  // namespace modelcalc
