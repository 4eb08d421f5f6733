#include "flags.h"

#include <CLI/CLI.hpp>

#include "output_file.h"

namespace modelcalc {

namespace {

// The spelling errors name: the first long name in CLI11's list ("-L,--layers"
// -> "--layers"), else the first name.
std::string error_name(std::string_view names) {
  std::string first;
  size_t start = 0;
  while (start <= names.size()) {
    const size_t comma = std::min(names.find(',', start), names.size());
    std::string one(names.substr(start, comma - start));
    if (one.rfind("--", 0) == 0) return one;
    if (first.empty()) first = one;
    start = comma + 1;
  }
  return first;
}

}  // namespace

struct FlagSet::Entry {
  struct Spelling {
    std::string name;  // as errors name it
    std::string raw;   // as typed
    CLI::Option* option = nullptr;  // null: not declared to CLI11, so not given
    // Kept for a flag not declared yet, in case required() must declare it.
    std::string names, help;
    std::string all_names;  // CLI11's spelling list, always ("-L,--layers")
  };
  std::vector<std::unique_ptr<Spelling>> spellings;  // stable addresses: CLI11 writes into raw
  Apply apply;                                        // null for a toggle
  bool toggle = false;
  enum class Path : uint8_t { kNone, kReads, kReadsList, kWrites } path = Path::kNone;
  bool toggled = false;                                // toggle_fn's target
  std::function<void()> on;                            // toggle_fn: called when given

  bool is(std::string_view name) const {
    for (const auto& s : spellings) {
      if (s->name == name) return true;
    }
    return false;
  }
};

namespace {

bool asks_for_help(std::span<const std::string> args) {
  for (const std::string& a : args) {
    if (a == "--help") return true;
    if (a.size() >= 2 && a[0] == '-' && a[1] != '-' && a.find('h', 1) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

FlagSet::FlagSet(CLI::App& app) : app_(app) {}
FlagSet::FlagSet(CLI::App& app, std::span<const std::string> args)
    : app_(app), args_(args), declare_all_(asks_for_help(args)) {}
FlagSet::~FlagSet() = default;

bool FlagSet::declare(std::string_view names) const {
  if (declare_all_) return true;
  size_t start = 0;
  while (start <= names.size()) {
    const size_t comma = std::min(names.find(',', start), names.size());
    const std::string_view one = names.substr(start, comma - start);
    start = comma + 1;
    if (one.size() < 2 || one[0] != '-') return true;  // a positional
    for (const std::string& a : args_) {
      if (one[1] == '-') {  // --name or --name=value, as CLI11 splits a long option
        if (a.starts_with(one) && (a.size() == one.size() || a[one.size()] == '=')) return true;
      } else if (a.size() >= 2 && a[0] == '-' && a[1] != '-' && a.find(one[1], 1) != std::string::npos) {
        return true;  // -x, -xVALUE, or x among combined short flags (over-declaring is harmless)
      }
    }
  }
  return false;
}

FlagSet& FlagSet::add_parsed(std::string_view names, std::string help, Apply apply) {
  auto e = std::make_unique<Entry>();
  auto s = std::make_unique<Entry::Spelling>();
  s->name = error_name(names);
  s->all_names = std::string(names);
  if (declare(names)) {
    s->option = app_.add_option(std::string(names), s->raw, std::move(help))->type_name("VALUE");
  } else {
    s->names = std::string(names);
    s->help = std::move(help);
  }
  e->spellings.push_back(std::move(s));
  e->apply = std::move(apply);
  entries_.push_back(std::move(e));
  return *this;
}

FlagSet& FlagSet::text(std::string_view names, std::string help, std::string* target) {
  return add_parsed(names, std::move(help), [target](std::string_view text, std::string_view) {
    *target = std::string(text);
    return Status::Ok();
  });
}

FlagSet& FlagSet::positional(std::string_view name, std::string help, std::string* target) {
  return text(name, std::move(help), target);
}

FlagSet& FlagSet::toggle(std::string_view names, std::string help, bool* target) {
  auto e = std::make_unique<Entry>();
  auto s = std::make_unique<Entry::Spelling>();
  s->name = error_name(names);
  s->all_names = std::string(names);
  if (declare(names)) s->option = app_.add_flag(std::string(names), *target, std::move(help));
  e->spellings.push_back(std::move(s));
  e->toggle = true;
  entries_.push_back(std::move(e));
  return *this;
}

FlagSet& FlagSet::toggle_fn(std::string_view names, std::string help, std::function<void()> on) {
  auto e = std::make_unique<Entry>();
  auto s = std::make_unique<Entry::Spelling>();
  s->name = error_name(names);
  s->all_names = std::string(names);
  if (declare(names)) s->option = app_.add_flag(std::string(names), e->toggled, std::move(help));
  e->spellings.push_back(std::move(s));
  e->toggle = true;
  e->on = std::move(on);
  entries_.push_back(std::move(e));
  return *this;
}

FlagSet& FlagSet::alias(std::string_view alias, std::string_view of) {
  Entry* e = find(of);
  auto s = std::make_unique<Entry::Spelling>();
  s->name = std::string(alias);
  s->all_names = std::string(alias);
  if (declare(alias)) s->option = app_.add_option(std::string(alias), s->raw, "Same as " + std::string(of));
  e->spellings.push_back(std::move(s));
  return *this;
}

FlagSet& FlagSet::required() {
  Entry::Spelling& s = *entries_.back()->spellings.front();
  if (s.option == nullptr) {  // required flags are always declared: CLI11 reports them missing
    s.option = app_.add_option(s.names, s.raw, std::move(s.help))->type_name("VALUE");
  }
  s.option->required();
  return *this;
}

FlagSet& FlagSet::reads(bool list) {
  entries_.back()->path = list ? Entry::Path::kReadsList : Entry::Path::kReads;
  return *this;
}

FlagSet& FlagSet::writes() {
  entries_.back()->path = Entry::Path::kWrites;
  return *this;
}

void FlagSet::footer(std::string text) { app_.footer(std::move(text)); }

FlagSet::Entry* FlagSet::find(std::string_view name) const {
  for (const auto& e : entries_) {
    if (e->is(name)) return e.get();
  }
  return nullptr;
}

bool FlagSet::given(std::string_view name) const {
  const Entry* e = find(name);
  if (e == nullptr) return false;
  for (const auto& s : e->spellings) {
    if (s->option != nullptr && s->option->count() > 0) return true;
  }
  return false;
}

std::vector<std::string> FlagSet::spellings() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) {
    for (const auto& s : e->spellings) {
      std::string_view names = s->all_names;
      size_t start = 0;
      while (start <= names.size()) {
        const size_t comma = std::min(names.find(',', start), names.size());
        const std::string_view one = names.substr(start, comma - start);
        if (one.size() >= 2 && one[0] == '-') out.emplace_back(one);
        start = comma + 1;
      }
    }
  }
  out.push_back("--help");
  out.push_back("-h");
  return out;
}

namespace {

// The flag name an argument spells: "--seq=8" -> "--seq", "-L48" -> "-L".
std::string_view flag_name(std::string_view arg) {
  if (arg.starts_with("--")) return arg.substr(0, arg.find('='));
  return arg.substr(0, 2);
}

}  // namespace

const FlagSet::Entry* FlagSet::find_spelled(std::string_view arg) const {
  const std::string_view name = flag_name(arg);
  for (const auto& e : entries_) {
    for (const auto& s : e->spellings) {
      std::string_view names = s->all_names;
      size_t start = 0;
      while (start <= names.size()) {
        const size_t comma = std::min(names.find(',', start), names.size());
        if (names.substr(start, comma - start) == name) return e.get();
        start = comma + 1;
      }
    }
  }
  return nullptr;
}

bool FlagSet::knows(std::string_view arg) const {
  const std::string_view name = flag_name(arg);
  return find_spelled(arg) != nullptr || name == "--help" || name == "-h" || name == "--version";
}

bool FlagSet::takes_next(std::string_view arg) const {
  const Entry* e = find_spelled(arg);
  if (e == nullptr || e->toggle || !e->apply) return false;
  return arg.starts_with("--") ? arg.find('=') == std::string_view::npos : arg.size() == 2;
}

Status FlagSet::as_typed(const Status& s) const {
  if (s.ok() || s.code() == Status::Code::kNotMet) return s;
  const std::string& msg = s.message();
  if (!msg.starts_with("--")) return s;
  const size_t colon = msg.find(": ");
  if (colon == std::string::npos) return s;
  const std::string flag = msg.substr(0, colon);
  const std::string rest = msg.substr(colon + 2);
  auto rebuilt = [&](const std::string& name, const std::string& what) {
    return s.code() == Status::Code::kOverflow ? Status::Overflow(name) : Status::InvalidArgument(name, what);
  };
  const Entry* e = find(flag);
  if (e != nullptr) {
    const Entry::Spelling* typed = nullptr;
    for (const auto& sp : e->spellings) {
      if (sp->option == nullptr || sp->option->count() == 0) continue;
      if (sp->name == flag) return s;  // named as typed
      if (typed == nullptr) typed = sp.get();
    }
    if (typed != nullptr) return rebuilt(typed->name, rest);
  }
  // Not given: a split degree the engine derived from --gpus.
  if (flag == "--tp" && given("--gpus")) return rebuilt("--gpus", "gives tp = gpus / (pp x dp), and " + rest);
  return s;
}

Status FlagSet::apply() {
  for (const auto& e : entries_) {
    if (e->on) {
      for (const auto& s : e->spellings) {
        if (s->option != nullptr && s->option->count() > 0) {
          e->on();
          break;
        }
      }
      continue;
    }
    if (!e->apply) continue;
    const Entry::Spelling* used = nullptr;
    for (const auto& s : e->spellings) {
      if (s->option == nullptr || s->option->count() == 0) continue;
      if (used != nullptr) {
        return Status::InvalidArgument(s->name, "is the same flag as " + used->name + "; give one of them");
      }
      used = s.get();
    }
    if (used == nullptr) continue;
    if (used->raw.empty()) {
      return Status::InvalidArgument(used->name, "needs a value, got an empty string");
    }
    MC_RETURN_IF_ERROR(e->apply(used->raw, used->name));
  }
  return check_paths();
}

namespace {

// The spelling the command line gave `e` a value with; null when not given.
template <typename E>
const auto* given_spelling(const E& e) {
  using S = typename decltype(e.spellings)::value_type::element_type;
  for (const auto& s : e.spellings) {
    if (s->option != nullptr && s->option->count() > 0 && !s->raw.empty()) return static_cast<const S*>(s.get());
  }
  return static_cast<const S*>(nullptr);
}

}  // namespace

Status FlagSet::check_paths() const {
  for (const auto& out : entries_) {
    const Entry::Spelling* o = out->path == Entry::Path::kWrites ? given_spelling(*out) : nullptr;
    if (o == nullptr || o->raw == "-") continue;
    for (const auto& in : entries_) {
      const Entry::Spelling* i =
          in->path == Entry::Path::kReads || in->path == Entry::Path::kReadsList ? given_spelling(*in) : nullptr;
      if (i == nullptr) continue;
      std::string_view list = i->raw;
      while (true) {  // one path, or each of a comma list's
        const size_t comma = in->path == Entry::Path::kReadsList ? list.find(',') : std::string_view::npos;
        MC_RETURN_IF_ERROR(check_output_path(o->raw, o->name, std::string(list.substr(0, comma)), i->name));
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
    }
  }
  return Status::Ok();
}

}  // namespace modelcalc
