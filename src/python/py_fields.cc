#include "py_fields.h"

#include <string>

#include "modelcalc/app/field.h"
#include "modelcalc/app/resolve.h"
#include "py_util.h"

namespace modelcalc::py_bind {

namespace {

// An error of the field parser, naming the keyword as the caller typed it.
[[noreturn]] void raise_field(const Status& s, std::string_view keyword) {
  raise_verbatim(Status::InvalidArgument(keyword, app::field_error(s).reason));
}

app::Value take_value(Result<app::Value> v, std::string_view keyword) {
  if (!v.ok()) raise_field(v.status(), keyword);
  return std::move(v).value();
}

std::string text_of(py::handle v) {
  Py_ssize_t n = 0;
  const char* s = PyUnicode_AsUTF8AndSize(v.ptr(), &n);
  if (s == nullptr) throw py::error_already_set();
  return std::string(s, static_cast<size_t>(n));
}

// One value of field `f`.
app::Value item_value(const app::Field& f, py::handle v, std::string_view keyword) {
  PyObject* o = v.ptr();
  if (PyUnicode_Check(o)) return take_value(app::parse_text(f, text_of(v), false), keyword);
  if (f.type == app::Type::kRange && (PyTuple_Check(o) || PyList_Check(o))) {
    if (py::len(v) != 2) raise_type_error(keyword, "(lo, hi) microseconds", v);
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
    return take_value(app::parse_text(f, value_text(seq[0], keyword) + "-" + value_text(seq[1], keyword), false),
                      keyword);
  }
  if (PyBool_Check(o)) raise_type_error(keyword, app::type_name(f), v);
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) return take_value(app::from_int(f, static_cast<int64_t>(x)), keyword);
  }
  if (PyFloat_Check(o)) return take_value(app::from_number(f, PyFloat_AS_DOUBLE(o)), keyword);
  if (PyLong_Check(o) || PyIndex_Check(o) || PyNumber_Check(o)) {  // a NumPy scalar, a big int
    if (f.type == app::Type::kText || f.type == app::Type::kChoice || f.type == app::Type::kDtype) {
      raise_type_error(keyword, app::type_name(f), v);
    }
    return take_value(app::parse_text(f, value_text(v, keyword), false), keyword);
  }
  raise_type_error(keyword, app::type_name(f), v);
}

app::Value list_value(const app::Field& f, py::handle v, std::string_view keyword) {
  if (PyUnicode_Check(v.ptr())) return take_value(app::parse_text(f, text_of(v), true), keyword);
  py::object it = py::reinterpret_steal<py::object>(PyObject_GetIter(v.ptr()));
  if (!it) {  // one value
    PyErr_Clear();
    return take_value(app::list_of(f, {item_value(f, v, keyword)}), keyword);
  }
  std::vector<app::Value> items;
  while (true) {
    py::object item = py::reinterpret_steal<py::object>(PyIter_Next(it.ptr()));
    if (!item) {
      if (PyErr_Occurred()) throw py::error_already_set();
      break;
    }
    if (static_cast<int64_t>(items.size()) >= app::kMaxListValues) {
      raise_verbatim(Status::InvalidArgument(keyword, "more than " + std::to_string(app::kMaxListValues) +
                                                          " values in one list"));
    }
    items.push_back(item_value(f, item, keyword));
  }
  return take_value(app::list_of(f, std::move(items)), keyword);
}

}  // namespace

void set_fields(const app::Table& t, void* request, const py::dict& kwargs) {
  std::vector<const app::Row*> seen;
  std::vector<std::string> seen_as;
  for (auto [k, v] : kwargs) {
    if (v.is_none()) continue;
    const std::string key = py::str(k).cast<std::string>();
    const app::Row* row = t.find(key);
    if (const app::Decided* d = row == nullptr ? t.find_decided(key) : nullptr; d != nullptr && key == d->field->name) {
      raise_verbatim(Status::InvalidArgument(key, "not a keyword of " + std::string(t.command) + ": " +
                                                      std::string(d->reason)));
    }
    if (row == nullptr || key.find('-') != std::string::npos) {
      throw py::type_error(std::string(t.command) + "() got an unexpected keyword argument '" + key + "'");
    }
    if (row->field->type == app::Type::kBool) {
      if (!truth(v, key)) continue;
    }
    for (size_t i = 0; i < seen.size(); ++i) {
      if (seen[i] == row) {
        raise_verbatim(Status::InvalidArgument(key, "is the same keyword as " + seen_as[i] + "; give one of them"));
      }
    }
    seen.push_back(row);
    seen_as.push_back(key);
    if (row->field->type == app::Type::kBool) {
      row->set(request, app::Value{true});
    } else {
      row->set(request, row->list ? list_value(*row->field, v, key) : item_value(*row->field, v, key));
    }
  }
}

void raise_answer_error(const Status& s, const app::Table* t) {
  raise_message(app::spell_error(s, app::Spelling::kKeyword, t));
}

}  // namespace modelcalc::py_bind
