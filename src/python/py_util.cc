#include "py_util.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "modelcalc/app/fields.h"
#include "modelcalc/app/resolve.h"
#include "quantity.h"

namespace modelcalc::py_bind {

namespace {

PyObject* g_input_error = nullptr;

bool is_flag_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }

std::string keyword_of(std::string_view flag, std::span<const std::pair<std::string_view, std::string_view>> renames) {
  for (const auto& [from, to] : renames) {
    if (from == flag) return std::string(to);
  }
  std::string k(flag.substr(flag.find_first_not_of('-')));
  for (char& c : k) {
    if (c == '-') c = '_';
  }
  return k;
}

// Every "--flag" in `text` (a whole word) as its keyword.
std::string rename_flags(std::string_view text, std::span<const std::pair<std::string_view, std::string_view>> renames) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const bool word_start = i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '-');
    if (word_start && text.compare(i, 2, "--") == 0 && i + 2 < text.size() && text[i + 2] >= 'a' && text[i + 2] <= 'z') {
      size_t j = i + 2;
      while (j < text.size() && is_flag_char(text[j])) ++j;
      while (j > i + 2 && text[j - 1] == '-') --j;
      out += keyword_of(text.substr(i, j - i), renames);
      i = j;
      continue;
    }
    out += text[i++];
  }
  return out;
}

}  // namespace

void init_errors(py::module_& m) {
  if (g_input_error == nullptr) {
    g_input_error = PyErr_NewExceptionWithDoc(
        "modelcalc.InputError",
        "Bad input: the CLI's one-line message, naming the keyword you passed and what it allows.",
        PyExc_ValueError, nullptr);
    if (g_input_error == nullptr) throw py::error_already_set();
  }
  m.add_object("InputError", py::reinterpret_borrow<py::object>(g_input_error));
}

std::string keyword_message(const Status& s, std::span<const std::pair<std::string_view, std::string_view>> renames) {
  const std::string& raw = s.message();
  const size_t colon = raw.find(": ");
  if (colon != std::string::npos) {
    const std::string_view field(raw.data(), colon);
    for (const auto& [from, to] : renames) {
      if (from == field) return std::string(to) + rename_flags(std::string_view(raw).substr(colon), renames);
    }
  }
  // A field at the start by its canonical name, the flags inside the reason as keywords.
  return rename_flags(app::spell_error(s, app::Spelling::kKeyword), renames);
}

void raise_input_error(const Status& s, std::span<const std::pair<std::string_view, std::string_view>> renames) {
  const std::string msg = keyword_message(s, renames);
  PyErr_SetString(g_input_error, msg.c_str());
  throw py::error_already_set();
}

void raise_verbatim(const Status& s) { raise_message(s.message()); }

void raise_message(const std::string& msg) {
  PyErr_SetString(g_input_error, msg.c_str());
  throw py::error_already_set();
}

void raise_type_error(std::string_view keyword, std::string_view what, py::handle got) {
  const std::string msg = std::string(keyword) + ": expected " + std::string(what) + ", got " +
                          std::string(Py_TYPE(got.ptr())->tp_name);
  throw py::type_error(msg);
}

bool is_none(py::handle v) { return v.is_none(); }

std::string value_text(py::handle v, std::string_view keyword) {
  PyObject* o = v.ptr();
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (s == nullptr) throw py::error_already_set();
    return std::string(s, static_cast<size_t>(n));
  }
  if (PyBool_Check(o)) raise_type_error(keyword, "a number or a string", v);
  if (PyFloat_Check(o)) {
    const double x = PyFloat_AS_DOUBLE(o);
    if (std::isfinite(x) && x == std::floor(x) && std::fabs(x) < 9007199254740992.0) {
      return std::to_string(static_cast<int64_t>(x));
    }
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);  // shortest round trip
    (void)ec;
    return std::string(buf, end);
  }
  if (PyLong_Check(o) || PyIndex_Check(o)) {
    py::object as_int = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (!as_int) throw py::error_already_set();
    return py::str(as_int).cast<std::string>();
  }
  raise_type_error(keyword, "a number or a string", v);
}

std::optional<int64_t> opt_count(py::handle v, std::string_view keyword, int64_t max) {
  if (v.is_none()) return std::nullopt;
  PyObject* o = v.ptr();
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0 && x >= 1 && x <= max) return static_cast<int64_t>(x);
  }
  return take_kw(app::parse_count_upto(value_text(v, keyword), keyword, max));
}

std::optional<double> opt_real(py::handle v, std::string_view keyword, RealParser parse) {
  if (v.is_none()) return std::nullopt;
  return take_kw(parse(value_text(v, keyword), keyword));
}

std::optional<double> opt_seconds(py::handle v, std::string_view keyword) {
  if (v.is_none()) return std::nullopt;
  std::string text = value_text(v, keyword);
  if (!PyUnicode_Check(v.ptr())) text += "s";  // a number is seconds
  return take_kw(parse_duration(text, keyword));
}

std::optional<Dtype> opt_dtype(py::handle v, std::string_view keyword, bool kv) {
  if (v.is_none()) return std::nullopt;
  if (!PyUnicode_Check(v.ptr())) raise_type_error(keyword, "a dtype name such as \"fp16\"", v);
  const std::string text = v.cast<std::string>();
  return take_kw(kv ? parse_kv_dtype(text, keyword) : parse_dtype(text, keyword));
}

std::optional<std::string> opt_str(py::handle v, std::string_view keyword) {
  if (v.is_none()) return std::nullopt;
  if (!PyUnicode_Check(v.ptr())) raise_type_error(keyword, "a string", v);
  std::string s = v.cast<std::string>();
  if (s.empty()) raise_verbatim(Status::InvalidArgument(keyword, "must not be empty"));
  return s;
}

bool truth(py::handle v, std::string_view keyword) {
  PyObject* o = v.ptr();
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) {
    const long x = PyLong_AsLong(o);
    if (x == 0 || x == 1) return x == 1;
  }
  raise_type_error(keyword, "True or False", v);
}

namespace {

bool is_text(py::handle v) { return PyUnicode_Check(v.ptr()) != 0; }

bool is_scalar_number(py::handle v) {
  PyObject* o = v.ptr();
  // A NumPy array has __index__ too (when it holds one element): a sequence is not a scalar.
  return !PyBool_Check(o) && (PyLong_Check(o) || PyFloat_Check(o) || (PyIndex_Check(o) && !PySequence_Check(o)));
}

template <typename F>
void for_each_item(py::handle v, std::string_view keyword, std::string_view what, F&& f) {
  py::object it = py::reinterpret_steal<py::object>(PyObject_GetIter(v.ptr()));
  if (!it) {
    PyErr_Clear();
    raise_type_error(keyword, what, v);
  }
  int64_t n = 0;
  while (true) {
    py::object item = py::reinterpret_steal<py::object>(PyIter_Next(it.ptr()));
    if (!item) {
      if (PyErr_Occurred()) throw py::error_already_set();
      break;
    }
    if (++n > app::kMaxListValues) {
      raise_verbatim(Status::InvalidArgument(keyword, "more than " + std::to_string(app::kMaxListValues) +
                                                             " values in one list"));
    }
    f(item);
  }
  if (n == 0) raise_verbatim(Status::InvalidArgument(keyword, "is an empty list; give at least one value"));
}

}  // namespace

std::vector<int64_t> count_list(py::handle v, std::string_view keyword, int64_t max) {
  if (is_text(v)) return take_kw(app::parse_count_range_list(value_text(v, keyword), keyword, max));
  if (is_scalar_number(v)) return {*opt_count(v, keyword, max)};
  std::vector<int64_t> out;
  if (PyObject_HasAttrString(v.ptr(), "__len__")) {
    const Py_ssize_t n = PyObject_Length(v.ptr());
    if (n > 0) out.reserve(static_cast<size_t>(std::min<Py_ssize_t>(n, app::kMaxListValues)));
    if (n < 0) PyErr_Clear();
  }
  for_each_item(v, keyword, "a count, a list of counts or a string such as \"1:64\"", [&](py::handle item) {
    if (item.is_none() || is_text(item) || !is_scalar_number(item)) {
      if (!is_text(item)) raise_type_error(keyword, "counts in the list", item);
    }
    out.push_back(*opt_count(item, keyword, max));
  });
  return out;
}

std::vector<Dtype> dtype_list(py::handle v, std::string_view keyword, bool kv) {
  if (is_text(v)) {
    const app::Field& f = kv ? app::fields::kKvDtype : app::fields::kDtype;
    auto list = app::parse_text(f, value_text(v, keyword), true);
    if (!list.ok()) raise_verbatim(Status::InvalidArgument(keyword, app::field_error(list.status()).reason));
    return std::get<std::vector<Dtype>>(std::move(list).value());
  }
  std::vector<Dtype> out;
  for_each_item(v, keyword, "a dtype name or a list of them", [&](py::handle item) {
    out.push_back(*opt_dtype(item, keyword, kv));
  });
  return out;
}

std::string comma_text(py::handle v, std::string_view keyword) {
  if (is_text(v) || is_scalar_number(v)) return value_text(v, keyword);
  std::string out;
  for_each_item(v, keyword, "a string or a list of them", [&](py::handle item) {
    if (!out.empty()) out += ',';
    out += value_text(item, keyword);
  });
  return out;
}

py::object to_py(const nlohmann::json& j) {
  using T = nlohmann::json::value_t;
  switch (j.type()) {
    case T::null:
    case T::discarded:
      return py::none();
    case T::boolean:
      return py::bool_(j.get<bool>());
    case T::number_integer:
      return py::reinterpret_steal<py::object>(PyLong_FromLongLong(j.get<int64_t>()));
    case T::number_unsigned:
      return py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(j.get<uint64_t>()));
    case T::number_float:
      return py::reinterpret_steal<py::object>(PyFloat_FromDouble(j.get<double>()));
    case T::string: {
      const std::string& s = j.get_ref<const std::string&>();
      return py::reinterpret_steal<py::object>(PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size())));
    }
    case T::array: {
      py::list out(j.size());
      size_t i = 0;
      for (const auto& e : j) out[i++] = to_py(e);
      return out;
    }
    case T::object: {
      py::dict out;
      for (const auto& [k, e] : j.items()) out[py::str(k)] = to_py(e);
      return out;
    }
    case T::binary:
      break;
  }
  return py::none();
}

nlohmann::json to_json(py::handle v, std::string_view keyword) {
  PyObject* o = v.ptr();
  if (o == Py_None) return nullptr;
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) return static_cast<int64_t>(x);
    return PyLong_AsDouble(o);
  }
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
  if (PyUnicode_Check(o)) return v.cast<std::string>();
  if (PyDict_Check(o)) {
    nlohmann::json out = nlohmann::json::object();
    for (auto [k, e] : py::reinterpret_borrow<py::dict>(v)) {
      if (!PyUnicode_Check(k.ptr())) raise_type_error(keyword, "string keys", k);
      out[k.cast<std::string>()] = to_json(e, keyword);
    }
    return out;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    nlohmann::json out = nlohmann::json::array();
    for (py::handle e : v) out.push_back(to_json(e, keyword));
    return out;
  }
  if (PyIndex_Check(o)) return to_json(py::reinterpret_steal<py::object>(PyNumber_Index(o)), keyword);
  if (PyNumber_Check(o)) return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
  raise_type_error(keyword, "JSON-like values (dict, list, str, number, bool, None)", v);
}

}  // namespace modelcalc::py_bind
