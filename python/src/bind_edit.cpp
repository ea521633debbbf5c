// ggufkit._core.edit: metadata edits through the library's gguf::edit (gguf/edit.h):
// in place when the new metadata fits (journaled), else a streamed atomic rewrite; to
// `out` when given (the input only read). Values take the key's type in the file.
#include <limits>

#include "common.h"
#include "docstrings.h"
#include "gguf/edit.h"
#include "gguf/format.h"
#include "gguf/model.h"
#include "gguf/schema.h"
#include "gguf/writer.h"

namespace ggufkit {
namespace {

using gguf::value;
using gguf::value_type;

[[noreturn]] void bad_value(const std::string& key, const std::string& why) {
  throw gguf::exception(gguf::make_error(gguf::errc::invalid_argument, gguf::no_offset, why, key));
}

// The value of value::parse, or its error with `key` as the subject (its message names the key).
value parsed(const std::string& key, gguf::result<value>&& r) {
  if (!r) {
    gguf::error e = std::move(r).error();
    if (e.subject.empty()) e.subject = key, e.subject_is_tensor = false;
    throw gguf::exception(std::move(e));
  }
  return std::move(*r);
}

// A str's UTF-8 bytes; GGUFError invalid_argument naming `key` for one that has none (a
// lone surrogate, e.g. "a\udc80").
std::string utf8_of(const std::string& key, py::handle str) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(str.ptr(), &n);
  if (!p) {
    PyErr_Clear();
    bad_value(key, "a str that is not valid Unicode text (a lone surrogate): " + std::string(py::str(py::repr(str))));
  }
  return std::string(p, size_t(n));
}

// A key of set= or remove=: a str of valid Unicode; GGUFError invalid_key naming it otherwise.
std::string key_of(py::handle k) {
  const std::string shown = py::str(py::repr(k));
  if (!py::isinstance<py::str>(k))
    throw gguf::exception(gguf::make_error(gguf::errc::invalid_key, gguf::no_offset,
                                           "a key must be a str, not " + std::string(Py_TYPE(k.ptr())->tp_name), shown));
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(k.ptr(), &n);
  if (!p) {
    PyErr_Clear();
    throw gguf::exception(gguf::make_error(gguf::errc::invalid_key, gguf::no_offset,
                                           "a key that is not valid Unicode text (a lone surrogate)", shown));
  }
  return std::string(p, size_t(n));
}

// numpy dtype name of a fixed-size GGUF type, and back.
const char* dtype_of(value_type t) {
  switch (t) {
    case value_type::uint8: return "uint8";
    case value_type::int8: return "int8";
    case value_type::uint16: return "uint16";
    case value_type::int16: return "int16";
    case value_type::uint32: return "uint32";
    case value_type::int32: return "int32";
    case value_type::float32: return "float32";
    case value_type::boolean: return "bool";
    case value_type::uint64: return "uint64";
    case value_type::int64: return "int64";
    case value_type::float64: return "float64";
    default: return nullptr;
  }
}
template <class T>
const char* dtype_of_t() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, uint64_t>) return "uint64";
  else return "int64";
}
std::optional<value_type> type_of_dtype(const std::string& name) {
  for (int i = 0; i <= 12; ++i) {
    const auto t = value_type(i);
    if (const char* d = dtype_of(t); d && name == d) return t;
  }
  return std::nullopt;
}

// The elements of `a` as T, each checked as a single value is (value::parse): numbers
// only, integers within T's range and without a fraction, floats within T's finite range
// (numpy's cast would wrap 2**40 to 0, cut 3.7 to 3 and make 1e300 inf without a word).
template <class T>
value numeric_array(const std::string& key, py::array a) {
  py::module_ np = py::module_::import("numpy");
  const std::string kind = py::str(a.dtype().attr("kind"));
  const char* type = dtype_of_t<T>();
  try {
    if (kind != "b" && kind != "i" && kind != "u" && kind != "f" && kind != "O")
      bad_value(key, std::string("a ") + type + " array takes numbers, not numpy dtype " + std::string(py::str(a.dtype())));
    if (a.size() > 0 && kind != "b") {
      if (kind == "O") {  // Python objects (ints past 64 bits, None, ...): numbers only
        const py::object number = np.attr("number");
        for (py::handle x : a.attr("ravel")())
          if (!(py::isinstance<py::int_>(x) || py::isinstance<py::float_>(x) || py::isinstance(x, number)))
            bad_value(key, std::string("a ") + type + " array takes numbers, not " +
                               std::string(py::str(x.get_type().attr("__name__"))));
        if (!std::is_integral_v<T>) a = np.attr("asarray")(a, py::arg("dtype") = "float64");
      }
      if constexpr (std::is_integral_v<T>) {
        if (kind == "f") {
          if (!np.attr("all")(np.attr("isfinite")(a)).template cast<bool>() ||
              !np.attr("all")(np.attr("equal")(a, np.attr("trunc")(a))).template cast<bool>())
            bad_value(key, std::string("a ") + type + " array takes integers, not fractions, inf or nan");
        }
        // Python ints compare exactly (an object array may hold ints past 64 bits)
        const py::int_ lo(a.attr("min")()), hi(a.attr("max")());
        const py::int_ min_t(std::numeric_limits<T>::min()), max_t(std::numeric_limits<T>::max());
        if (lo < min_t || hi > max_t)
          bad_value(key, std::string("an element outside ") + type + " (" + std::string(py::str(py::handle(lo))) + " .. " +
                             std::string(py::str(py::handle(hi))) + ")");
      } else {
        const py::object finite = np.attr("isfinite")(a);
        if (np.attr("any")(finite).template cast<bool>()) {
          const double big = np.attr("max")(np.attr("abs")(a.attr("__getitem__")(finite))).template cast<double>();
          if (big > double(std::numeric_limits<T>::max()))
            bad_value(key, std::string("an element outside ") + type + " (" + std::to_string(big) + ")");
        }
      }
    }
  } catch (py::error_already_set& e) {
    bad_value(key, std::string("a ") + type + " array takes numbers: " + e.what());
  }
  auto c = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
  if (!c) {
    PyErr_Clear();
    bad_value(key, std::string("a ") + type + " array takes numbers");
  }
  return value::array<T>(std::span<const T>(c.data(), size_t(c.size())));
}

// Adds one Python scalar to `k` (the library's inference rule, gguf::untyped_leaves);
// false for what is not a scalar GGUF can hold.
bool add_leaf(gguf::untyped_leaves& k, py::handle x) {
  if (py::isinstance(x, py::module_::import("numpy").attr("generic"))) return add_leaf(k, x.attr("item")());
  if (py::isinstance<py::str>(x)) k.add_string();
  else if (py::isinstance<py::bool_>(x)) k.add_bool();
  else if (py::isinstance<py::float_>(x)) k.add_float();
  else if (py::isinstance<py::int_>(x)) {
    const auto big = py::reinterpret_borrow<py::int_>(x);
    if (big >= py::int_(std::numeric_limits<int64_t>::min()) && big <= py::int_(std::numeric_limits<int64_t>::max()))
      k.add_integer(big.cast<int64_t>());
    else if (big >= py::int_(0) && big <= py::int_(std::numeric_limits<uint64_t>::max()))
      k.add_integer(big.cast<uint64_t>());
    else return false;
  } else return false;
  return true;
}

// The type of an untyped scalar or of an untyped sequence's elements.
value_type inferred_type(const std::string& key, gguf::untyped_leaves& k) {
  auto t = k.element_type();
  if (!t) bad_value(key, t.error().detail);
  return *t;
}

value array_value(const std::string& key, py::handle seq, std::optional<value_type> elem) {
  const bool ndarray = py::isinstance<py::array>(seq);
  // any iterable, read once
  const py::object v = ndarray ? py::reinterpret_borrow<py::object>(seq) : py::list(py::reinterpret_borrow<py::object>(seq));
  if (!elem && !ndarray) {  // a Python sequence: its elements decide (numpy arrays keep their dtype)
    gguf::untyped_leaves k;
    for (py::handle x : v)
      if (!add_leaf(k, x)) bad_value(key, "arrays must be one-dimensional, of str, bool, int or float");
    elem = inferred_type(key, k);
  }
  if (elem == value_type::string) {
    std::vector<std::string> s;
    for (py::handle x : v) {
      if (!py::isinstance<py::str>(x)) bad_value(key, "a string array takes only str elements");
      s.push_back(utf8_of(key, x));
    }
    return value::string_array(std::span<const std::string>(s));
  }
  py::array a = py::module_::import("numpy").attr("asarray")(v);
  if (a.ndim() != 1) bad_value(key, "arrays must be one-dimensional");
  if (!elem) {
    const std::string dt = py::str(a.dtype().attr("name"));
    elem = type_of_dtype(dt);
    if (!elem) bad_value(key, "no GGUF array type for numpy dtype " + dt);
  }
  switch (*elem) {
    case value_type::uint8: return numeric_array<uint8_t>(key, a);
    case value_type::int8: return numeric_array<int8_t>(key, a);
    case value_type::uint16: return numeric_array<uint16_t>(key, a);
    case value_type::int16: return numeric_array<int16_t>(key, a);
    case value_type::uint32: return numeric_array<uint32_t>(key, a);
    case value_type::int32: return numeric_array<int32_t>(key, a);
    case value_type::float32: return numeric_array<float>(key, a);
    case value_type::boolean: return numeric_array<bool>(key, a);
    case value_type::uint64: return numeric_array<uint64_t>(key, a);
    case value_type::int64: return numeric_array<int64_t>(key, a);
    case value_type::float64: return numeric_array<double>(key, a);
    default: bad_value(key, "arrays of arrays cannot be set from Python");
  }
}

// The value to store for `key`: the type of the key in the file when it has one, else
// numpy scalars and arrays keep their dtype, else the library's rule
// (gguf::untyped_leaves: bool -> bool, int -> int32, int64 or uint64 as it fits, float ->
// float32, str -> string; a sequence by its elements).
value to_value(const std::string& key, py::handle v, std::optional<gguf::value_ref> old) {
  value_type type = value_type::uint8;
  bool typed = false;  // the key's type is known (from the file, or a numpy scalar)
  if (old) type = old->type(), typed = true;
  std::optional<value_type> elem;
  if (typed && type == value_type::array) elem = take(old->array()).element_type();
  py::module_ np = py::module_::import("numpy");
  py::object item;
  if (py::isinstance(v, np.attr("generic"))) {
    if (!typed)
      if (auto t = type_of_dtype(py::str(v.attr("dtype").attr("name")))) type = *t, typed = true;
    item = v.attr("item")();  // (held: v only borrows it)
    v = item;
  }
  const bool scalar = py::isinstance<py::str>(v) || py::isinstance<py::bool_>(v) || py::isinstance<py::int_>(v) ||
                      py::isinstance<py::float_>(v);
  if (scalar && !typed) {
    gguf::untyped_leaves k;
    if (!add_leaf(k, v)) bad_value(key, "an integer outside int64 and uint64");
    type = inferred_type(key, k), typed = true;
  }
  if (py::isinstance<py::str>(v)) {
    if (type != value_type::string) return parsed(key, value::parse(type, utf8_of(key, v)));
    return value::string(utf8_of(key, v));
  }
  if (py::isinstance<py::bool_>(v)) {
    if (type != value_type::boolean) bad_value(key, "a bool for a key of type " + std::string(gguf::value_type_name(type)));
    return value::boolean(v.cast<bool>());
  }
  if (py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v)) {
    const bool is_int = py::isinstance<py::int_>(v);
    if (type == value_type::string || type == value_type::array) bad_value(key, "a number for a key of type " + std::string(gguf::value_type_name(type)));
    if (!is_int && type != value_type::float32 && type != value_type::float64) bad_value(key, "a float for an integer key");
    return parsed(key, value::parse(type, py::str(py::repr(v)).cast<std::string>()));
  }
  if (py::isinstance<py::bytes>(v) || py::isinstance<py::dict>(v) || !py::isinstance<py::iterable>(v))  // None, object()
    bad_value(key, "unsupported value type " + std::string(py::str(v.get_type().attr("__name__"))));
  if (typed && type != value_type::array) bad_value(key, "a sequence for a key of type " + std::string(gguf::value_type_name(type)));
  return array_value(key, v, elem);
}

}  // namespace

void register_edit(py::module_& m) {
  m.def("edit",
        [](py::object path, py::object set, py::object remove, py::object out, bool in_place, bool force,
           bool break_links) {
          const gguf::file f = file_from(path);  // the types of the keys being set
          std::vector<gguf::edit_op> ops;
          // a str is one key, not its characters (issue 29, item 6)
          if (py::isinstance<py::str>(remove)) ops.push_back(gguf::edit_op::remove(key_of(remove)));
          else if (!remove.is_none()) {
            if (!py::isinstance<py::iterable>(remove))
              throw py::type_error("remove takes a key (str) or an iterable of keys, not " +
                                   std::string(Py_TYPE(remove.ptr())->tp_name));
            for (py::handle k : remove) ops.push_back(gguf::edit_op::remove(key_of(k)));
          }
          if (!set.is_none()) {
            if (!py::hasattr(set, "items"))
              throw py::type_error("set takes a mapping of key -> value, not " + std::string(Py_TYPE(set.ptr())->tp_name));
            for (py::handle item : set.attr("items")()) {
              const py::tuple kv = py::reinterpret_borrow<py::object>(item);
              const std::string key = key_of(kv[0]);
              ops.push_back(gguf::edit_op::set(key, to_value(key, kv[1], f.find(key))));
            }
          }
          gguf::edit_options opts;
          if (!out.is_none()) opts.output = path_string(out);
          // A File of this path open in this process maps the file: an in-place edit would
          // change the bytes under it, a streamed rewrite leaves it its old inode (item 6).
          const bool open_here = opts.output.empty() && file_is_open(f.path());
          opts.in_place = in_place && !open_here ? gguf::in_place_mode::automatic : gguf::in_place_mode::never;
          opts.overwrite = force;
          opts.break_links = break_links;
          // What the command line refuses, unless force (issue 29, item 6): an edit that adds
          // validation errors (a removed general.architecture, a vocabulary llama.cpp rejects).
          std::vector<gguf::diagnostic> added;
          opts.check = [&](const gguf::file& before, const gguf::file& after) -> gguf::result<void> {
            gguf::validate_options as_written;  // the new metadata as the file it becomes (split rules: its name)
            as_written.path = opts.output.empty() ? f.path() : opts.output.string();
            auto old_report = gguf::validate(before), new_report = gguf::validate(after, as_written);
            gguf::add_loader_diagnostics(before, old_report);  // what llama.cpp's loader refuses
            gguf::add_loader_diagnostics(after, new_report);
            added = gguf::new_errors(old_report, new_report);
            if (added.empty() || force) return {};
            std::string why;
            for (const auto& d : added) why += (why.empty() ? "" : "; ") + d.rule + " (" + d.subject + "): " + d.message;
            return gguf::make_error(gguf::errc::invalid_model, gguf::no_offset,
                                    "the edit would make the file invalid (force=True writes it anyway): " + why);
          };
          gguf::result<gguf::edit_report> r{gguf::edit_report{}};
          {
            py::gil_scoped_release unlocked;
            r = gguf::edit(f.path(), ops, opts);
          }
          if (!r) {  // hints in Python's spelling (item 10)
            gguf::error e = std::move(r).error();
            for (auto [cli, py] : {std::pair<std::string, std::string>{"--break-links", "break_links=True"},
                                   {"--force", "force=True"}})
              for (size_t p = e.detail.find(cli); p != std::string::npos; p = e.detail.find(cli, p + py.size()))
                e.detail.replace(p, cli.size(), py);
            throw gguf::exception(std::move(e));
          }
          const auto rep = std::move(*r);
          py::dict d;
          d["target"] = rep.target.string();
          d["in_place"] = rep.in_place;
          d["old_size"] = rep.old_size;
          d["new_size"] = rep.new_size;
          return d;
        },
        py::arg("path"), py::arg("set") = py::none(), py::arg("remove") = py::none(), py::arg("out") = py::none(),
        py::arg("in_place") = true, py::arg("force") = false, py::arg("break_links") = false, doc::edit);
}

}  // namespace ggufkit
