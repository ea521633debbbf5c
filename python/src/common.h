// Shared pieces of the ggufkit extension module (_core): error translation, text
// conversion, and the registration functions of each part.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include "gguf/error.h"
#include "gguf/file.h"
#include "gguf/vocab.h"

namespace ggufkit {

namespace py = pybind11;

/// TypeError unless `self` (when an instance of the class bound to `t`) was initialized:
/// by its __init__, __setstate__, or made by the module. An object of Cls.__new__(Cls)
/// has no C++ value: pybind11 would hand its methods uninitialized memory (a crash).
void require_initialized(py::handle self, const std::type_info& t);

/// The Python object of `s`, an instance pybind11 holds (a method's self): methods whose
/// results keep their File alive take `const T&` (so that signatures name the class) and
/// get the object back here.
template <class T>
py::object python_object(const T& s) {
  py::handle h = py::detail::find_registered_python_instance(const_cast<T*>(&s), py::detail::get_type_info(typeid(T)));
  if (!h) throw std::logic_error(std::string("ggufkit: no Python object for a ") + typeid(T).name());
  return py::reinterpret_steal<py::object>(h);
}

/// The value of a result, or a gguf::exception (translated to ggufkit.GGUFError).
template <class T>
T take(gguf::result<T>&& r) {
  if (!r) throw gguf::exception(std::move(r).error());
  return std::move(*r);
}
inline void take(gguf::result<void>&& r) {
  if (!r) throw gguf::exception(r.error());
}

/// UTF-8 bytes as str; invalid sequences become U+FFFD (text meant for reading).
inline py::str text_replace(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), Py_ssize_t(s.size()), "replace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}
/// UTF-8 bytes as str, lossless: invalid bytes become lone surrogates (surrogateescape),
/// which encode back to the same bytes (metadata strings, keys, tensor names).
inline py::str text_lossless(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), Py_ssize_t(s.size()), "surrogateescape");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

/// A read-only numpy array over memory owned by `base` (kept alive by the array).
py::array readonly_view(py::dtype dt, std::vector<py::ssize_t> shape, const void* ptr, py::handle base);

/// The Python object of a metadata value: int/float/bool/str, numeric arrays as numpy
/// arrays (views of the mapping owned by `owner` in host byte order, else copies),
/// string arrays as list[str], arrays of arrays as lists.
py::object value_to_py(const gguf::value_ref& v, gguf::byte_order order, py::handle owner);

/// True while a File of `path` (symlinks resolved) is open in this process (its mapping
/// would see an in-place edit: ggufkit.edit rewrites such a file instead).
bool file_is_open(const std::string& path);

/// The file behind a path (str / os.PathLike) or a ggufkit File object.
gguf::file file_from(py::handle path_or_file);
/// A path argument (str, bytes or os.PathLike) as the file system's bytes, as Python's open()
/// takes it; ValueError for an embedded NUL (which would cut the path short).
std::string path_string(py::handle path);

/// The reopen-by-path state of a picklable object (File, Vocab, Model); TypeError for an
/// object not opened from a path.
py::tuple path_state(const std::string& path, const char* what);

/// One token id: an int or what operator.index takes (numpy integers). TypeError naming
/// the value for anything else (float, str, None); GGUFError "out_of_range" naming it for
/// an int outside int32 (the caller checks the vocabulary's range).
int64_t token_id_of(py::handle x);
/// Token ids from a sequence of ints, each as token_id_of takes it; TypeError for a str or
/// bytes (a text, not ids).
std::vector<int32_t> ids_of(py::handle seq);

/// The ids of `text` (the GIL released while tokenizing); GGUFError with the reason
/// (bind_vocab.cpp).
std::vector<int32_t> encode(const gguf::vocab& v, std::string_view text, bool add_special, bool parse_special);

void register_file(py::module_& m);
void register_vocab(py::module_& m);
void register_model(py::module_& m);
void register_edit(py::module_& m);
void register_quant(py::module_& m);
void register_quantize_model(py::module_& m);

/// Rows of `array` (float32-convertible, last axis = one row) quantized to `type` (ggml
/// name or id), with optional importance weights: uint8 array of the same leading shape,
/// last axis the row's bytes (bind_quant.cpp).
py::array quantize_array(py::handle array, py::handle type, py::handle imatrix);

}  // namespace ggufkit

/// Declares (at global scope, after T is defined, before it is bound) that every argument
/// of type T, self included, is checked by require_initialized before pybind11 loads it.
#define GGUFKIT_REQUIRE_INITIALIZED(T)                                         \
  namespace pybind11::detail {                                                 \
  template <>                                                                  \
  class type_caster<T> : public type_caster_base<T> {                          \
   public:                                                                     \
    bool load(handle src, bool convert) {                                      \
      ::ggufkit::require_initialized(src, typeid(T));                          \
      return type_caster_base<T>::load(src, convert);                          \
    }                                                                          \
  };                                                                           \
  }
