// ggufkit._core: the pybind11 module over the gguf library. This file: errors, File,
// its metadata mapping and Tensor. Every call that does real work releases the GIL.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "common.h"
#include "docstrings.h"
#include "gguf/format.h"
#include "gguf/output.h"
#include "gguf/quant.h"
#include "gguf/version.h"

namespace ggufkit {

py::array readonly_view(py::dtype dt, std::vector<py::ssize_t> shape, const void* ptr, py::handle base) {
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t s = dt.itemsize();
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  py::array a(dt, shape, strides, ptr, base);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

namespace {

// The local files open as File objects in this process, by resolved path (file_is_open).
std::mutex open_files_mu;
std::map<std::string, int> open_files;

class open_file_mark {
 public:
  explicit open_file_mark(const gguf::file& f) {
    if (f.is_remote() || f.path().empty()) return;
    key_ = gguf::resolve_write_target(f.path()).string();
    std::lock_guard lock(open_files_mu);
    ++open_files[key_];
  }
  open_file_mark(open_file_mark&& o) noexcept : key_(std::exchange(o.key_, {})) {}
  open_file_mark(const open_file_mark&) = delete;
  open_file_mark& operator=(const open_file_mark&) = delete;
  ~open_file_mark() {
    if (key_.empty()) return;
    std::lock_guard lock(open_files_mu);
    if (--open_files[key_] == 0) open_files.erase(key_);
  }

 private:
  std::string key_;
};

struct py_file {
  gguf::file f;
  open_file_mark mark;
  explicit py_file(gguf::file file) : f(std::move(file)), mark(f) {}
};

struct py_tensor {
  py::object file;  // the File (keeps the mapping alive)
  const gguf::tensor_info* t;
};

}  // namespace
}  // namespace ggufkit

GGUFKIT_REQUIRE_INITIALIZED(ggufkit::py_file)
GGUFKIT_REQUIRE_INITIALIZED(ggufkit::py_tensor)

namespace ggufkit {
namespace {

// numpy dtype of a fixed-size GGUF value type ("" for string / array).
const char* numpy_code(gguf::value_type t) {
  using gguf::value_type;
  switch (t) {
    case value_type::uint8: return "u1";
    case value_type::int8: return "i1";
    case value_type::uint16: return "u2";
    case value_type::int16: return "i2";
    case value_type::uint32: return "u4";
    case value_type::int32: return "i4";
    case value_type::float32: return "f4";
    case value_type::boolean: return "?";
    case value_type::uint64: return "u8";
    case value_type::int64: return "i8";
    case value_type::float64: return "f8";
    default: return "";
  }
}

}  // namespace

py::object value_to_py(const gguf::value_ref& v, gguf::byte_order order, py::handle owner) {
  using gguf::value_type;
  switch (v.type()) {
    case value_type::uint8: return py::int_(take(v.get<uint8_t>()));
    case value_type::int8: return py::int_(take(v.get<int8_t>()));
    case value_type::uint16: return py::int_(take(v.get<uint16_t>()));
    case value_type::int16: return py::int_(take(v.get<int16_t>()));
    case value_type::uint32: return py::int_(take(v.get<uint32_t>()));
    case value_type::int32: return py::int_(take(v.get<int32_t>()));
    case value_type::uint64: return py::int_(take(v.get<uint64_t>()));
    case value_type::int64: return py::int_(take(v.get<int64_t>()));
    case value_type::float32: return py::float_(double(take(v.get<float>())));
    case value_type::float64: return py::float_(take(v.get<double>()));
    case value_type::boolean: return py::bool_(take(v.get<bool>()));
    case value_type::string: return text_lossless(take(v.get<std::string_view>()));
    case value_type::array: break;
  }
  const gguf::array_ref a = take(v.array());
  if (a.element_type() == value_type::string) {
    py::list out(a.size());
    take(a.for_each_string([&](uint64_t i, std::string_view s) { out[i] = text_lossless(s); }));
    return out;
  }
  if (a.element_type() == value_type::array) {
    py::list out(a.size());
    for (uint64_t i = 0; i < a.size(); ++i) out[i] = value_to_py(take(a.at(i)), order, owner);
    return out;
  }
  const bool host = (order == gguf::byte_order::little) == (std::endian::native == std::endian::little);
  const char* code = numpy_code(a.element_type());
  const auto raw = a.raw();
  if (host) return readonly_view(py::dtype(code), {py::ssize_t(a.size())}, raw.data(), owner);
  const std::string swapped = std::string(order == gguf::byte_order::big ? ">" : "<") + code;
  py::array view = readonly_view(py::dtype(swapped), {py::ssize_t(a.size())}, raw.data(), owner);
  return view.attr("astype")(py::dtype(code));
}

void require_initialized(py::handle self, const std::type_info& t) {
  const py::detail::type_info* ti = py::detail::get_type_info(t);
  if (!ti || !self || !PyObject_TypeCheck(self.ptr(), ti->type)) return;  // not ours: pybind11 says why
  const auto v_h = reinterpret_cast<py::detail::instance*>(self.ptr())->get_value_and_holder(ti, false);
  // (value_and_holder's bool is "has a value pointer": null until __init__, so v_h.inst)
  if (v_h.inst && !v_h.holder_constructed()) {
    const std::string name = ti->type->tp_name;  // "ggufkit._core.File"
    throw py::type_error(name + " object is not initialized (" + name + ".__new__() was called without __init__())");
  }
}

bool file_is_open(const std::string& path) {
  const auto key = gguf::resolve_write_target(path).string();
  std::lock_guard lock(open_files_mu);
  return open_files.count(key) > 0;
}

std::string path_string(py::handle p) {
  const py::module_ os = py::module_::import("os");
  const std::string s = py::bytes(os.attr("fsencode")(os.attr("fspath")(p)));  // str or bytes, as open() takes them
  if (s.find('\0') != std::string::npos) throw py::value_error("embedded null byte");  // as open() says
  return s;
}

gguf::file file_from(py::handle src) {
  if (py::isinstance<py_file>(src)) return src.cast<py_file&>().f;
  const std::string path = path_string(src);
  gguf::result<gguf::file> r = gguf::make_error(gguf::errc::io_error, gguf::no_offset, "not opened");
  {
    py::gil_scoped_release unlocked;
    r = gguf::file::open_any(path);
  }
  if (!r) {  // the message names the file, as the command line's does (issue 29, item 18)
    gguf::error e = std::move(r).error();
    e.detail = path + ": " + e.detail;
    throw gguf::exception(std::move(e));
  }
  // Readers never write: an interrupted in-place edit is read in its consistent state;
  // say so once (a RuntimeWarning; issue 29, item 3).
  if (const auto pending = r->interrupted_edit(); pending != gguf::pending_edit::none) {
    const std::string what = pending == gguf::pending_edit::foreign
                                 ? ": the journal of an in-place edit beside it belongs to another file: ignored"
                                 : ": an interrupted in-place edit awaits a writer (read in its consistent state; "
                                   "the next ggufkit.edit or gguf edit of the file finishes it)";
    if (PyErr_WarnEx(PyExc_RuntimeWarning, (path + what).c_str(), 1) != 0) throw py::error_already_set();
  }
  return std::move(*r);
}

namespace {

// Makes a view into a remote file readable (a no-op for a local file).
void fetch(const gguf::file& f, std::span<const std::byte> view) {
  if (!f.is_remote() || view.empty()) return;
  gguf::result<void> r;
  {
    py::gil_scoped_release unlocked;
    r = f.fetch(view);
  }
  take(std::move(r));
}

std::shared_ptr<py_file> open_url(const std::string& url, std::vector<std::string> headers, double timeout, int retries,
                    std::string cache_dir, std::optional<uint64_t> first_request, std::string hf_token) {
  gguf::remote_options o;
  o.hf_token = std::move(hf_token);
  o.headers = std::move(headers);
  o.timeout_seconds = std::max(1L, long(std::ceil(timeout)));
  o.retries = retries;
  o.cache_dir = std::move(cache_dir);
  if (first_request) o.first_request = std::max<uint64_t>(*first_request, 1);
  gguf::result<gguf::file> r = gguf::make_error(gguf::errc::io_error, gguf::no_offset, "not opened");
  {
    py::gil_scoped_release unlocked;
    r = gguf::file::open_url(url, o);
  }
  if (!r) {  // the message names the URL, as File(url)'s does (file_from)
    gguf::error e = std::move(r).error();
    e.detail = url + ": " + e.detail;
    throw gguf::exception(std::move(e));
  }
  return std::make_shared<py_file>(py_file{std::move(*r)});
}

}  // namespace

void register_file(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const gguf::exception& e) {
      const gguf::error& er = e.error();
      py::object cls = py::module_::import("ggufkit._errors").attr("GGUFError");
      py::object off = er.offset == gguf::no_offset ? py::object(py::none()) : py::object(py::int_(er.offset));
      py::object subject = er.subject.empty() ? py::object(py::none()) : py::object(text_lossless(er.subject));
      py::object exc = cls(er.message(), std::string(gguf::error_name(er.code)), off,
                           er.subject_is_tensor ? py::object(py::none()) : subject,
                           er.subject_is_tensor ? subject : py::object(py::none()), er.detail);
      PyErr_SetObject(cls.ptr(), exc.ptr());
    }
  });

  // Both classes first, so that signatures name them (not their C++ types).
  py::class_<py_file, std::shared_ptr<py_file>> file(m, "File", doc::File);
  py::class_<py_tensor> tensor(m, "Tensor", doc::Tensor);
  file.def(py::init([](py::object path) { return py_file{file_from(path)}; }), py::arg("path"), doc::File_init)
      .def_property_readonly("path", [](const py_file& s) { return s.f.path(); }, doc::File_path)
      .def_property_readonly("version", [](const py_file& s) { return s.f.version(); }, doc::File_version)
      .def_property_readonly("byte_order", [](const py_file& s) { return std::string(gguf::byte_order_name(s.f.byte_order())); },
                             doc::File_byte_order)
      .def_property_readonly("alignment", [](const py_file& s) { return s.f.alignment(); }, doc::File_alignment)
      .def_property_readonly("data_offset", [](const py_file& s) { return s.f.data_offset(); }, doc::File_data_offset)
      .def_property_readonly("size", [](const py_file& s) { return s.f.size(); }, doc::File_size)
      .def_property_readonly("is_remote", [](const py_file& s) { return s.f.is_remote(); }, doc::File_is_remote)
      .def_property_readonly("transfer", [](const py_file& s) {
        const auto t = s.f.transfer();
        py::dict d;
        d["requests"] = t.requests;
        d["bytes"] = t.bytes;
        return d;
      }, doc::File_transfer)
      .def_property_readonly("buffer", [](const py_file& s) {
        const auto b = s.f.bytes();
        fetch(s.f, b);  // a remote file: every byte
        return readonly_view(py::dtype("u1"), {py::ssize_t(b.size())}, b.data(), python_object(s));
      }, doc::File_buffer)
      .def("_keys", [](const py_file& s) {
        py::list out(s.f.kv_count());
        for (size_t i = 0; i < s.f.kv_count(); ++i) out[i] = text_lossless(s.f.kv(i).key);
        return out;
      })
      .def("_value", [](const py_file& s, const std::string& key) -> py::object {
        auto v = s.f.find(key);
        if (!v) throw py::key_error(key);
        return value_to_py(*v, s.f.byte_order(), python_object(s));
      })
      .def("_type", [](const py_file& s, const std::string& key) {
        auto v = s.f.find(key);
        if (!v) throw py::key_error(key);
        return std::string(gguf::value_type_name(v->type()));
      })
      .def("_kv_layout", [](const py_file& s) {
        // (key, offset of the key, value type id, offset of the value) per key/value
        py::list out(s.f.kv_count());
        for (size_t i = 0; i < s.f.kv_count(); ++i) {
          const auto& kv = s.f.kv(i);
          out[i] = py::make_tuple(text_lossless(kv.key), kv.offset, uint32_t(kv.value.type()), kv.value.offset());
        }
        return out;
      })
      .def("_types", [](const py_file& s, const std::string& key) {
        // gguf-py's ReaderField.types: the type, then for an array the types of its first element
        auto v = s.f.find(key);
        if (!v) throw py::key_error(key);
        py::list out;
        gguf::value_ref cur = *v;
        for (;;) {
          out.append(uint32_t(cur.type()));
          if (cur.type() != gguf::value_type::array) break;
          const auto a = take(cur.array());
          if (a.empty()) break;
          cur = take(a.at(0));
        }
        return out;
      })
      .def("_tensor_layout", [](const py_file& s) {
        // (name, offset of the tensor info, ggml type id, offset in the data section, nbytes)
        py::list out(s.f.tensor_count());
        size_t i = 0;
        for (const auto& t : s.f.tensors())
          out[i++] = py::make_tuple(text_lossless(t.name), t.info_offset, uint32_t(t.type), t.offset, t.nbytes);
        return out;
      })
      .def_property_readonly("tensors", [](const py_file& s) {
        const py::object self = python_object(s);
        py::list out(s.f.tensor_count());
        size_t i = 0;
        for (const auto& t : s.f.tensors()) out[i++] = py::cast(py_tensor{self, &t});
        return out;
      }, doc::File_tensors)
      .def("tensor", [](const py_file& s, const std::string& name) {
        return py_tensor{python_object(s), take(s.f.get_tensor(name))};
      }, py::arg("name"), doc::File_tensor)
      .def("__repr__", [](const py_file& s) {
        return "<ggufkit.File '" + s.f.path() + "' v" + std::to_string(s.f.version()) + ", " +
               std::to_string(s.f.kv_count()) + " keys, " + std::to_string(s.f.tensor_count()) + " tensors>";
      });

  m.def("_open_url", &open_url, py::arg("url"), py::arg("headers"), py::arg("timeout"), py::arg("retries"),
        py::arg("cache_dir"), py::arg("first_request"), py::arg("hf_token") = std::string());

  m.def("ggml_types", [] {
    // (id, name, blck_size, type_size) of every ggml type id in use
    py::list out;
    for (uint32_t id = 0; id < gguf::ggml_type_count; ++id)
      if (const auto* t = gguf::ggml_type_traits(id)) out.append(py::make_tuple(id, std::string(t->name), t->blck_size, t->type_size));
    return out;
  }, doc::ggml_types);

  tensor.def_property_readonly("name", [](const py_tensor& s) { return text_lossless(s.t->name); }, doc::Tensor_name)
      .def_property_readonly("type", [](const py_tensor& s) { return std::string(gguf::ggml_type_name(s.t->type)); },
                             doc::Tensor_type)
      .def_property_readonly("ne", [](const py_tensor& s) {
        py::tuple ne(s.t->n_dims);
        for (uint32_t i = 0; i < s.t->n_dims; ++i) ne[i] = s.t->ne[i];
        return ne;
      }, doc::Tensor_ne)
      .def_property_readonly("shape", [](const py_tensor& s) {
        py::tuple shape(s.t->n_dims);
        for (uint32_t i = 0; i < s.t->n_dims; ++i) shape[i] = s.t->ne[s.t->n_dims - 1 - i];
        return shape;
      }, doc::Tensor_shape)
      .def_property_readonly("n_elements", [](const py_tensor& s) { return s.t->nelements(); }, doc::Tensor_n_elements)
      .def_property_readonly("offset", [](const py_tensor& s) { return s.t->offset; }, doc::Tensor_offset)
      .def_property_readonly("nbytes", [](const py_tensor& s) { return s.t->nbytes; }, doc::Tensor_nbytes)
      .def_property_readonly("data", [](const py_tensor& s) {
        fetch(s.file.cast<py_file&>().f, s.t->data);  // a remote file: this tensor's bytes
        return readonly_view(py::dtype("u1"), {py::ssize_t(s.t->data.size())}, s.t->data.data(), s.file);
      }, doc::Tensor_data)
      .def("dequantize", [](const py_tensor& s) {
        std::vector<py::ssize_t> shape(s.t->n_dims);
        for (uint32_t i = 0; i < s.t->n_dims; ++i) shape[i] = py::ssize_t(s.t->ne[s.t->n_dims - 1 - i]);
        py::array_t<float> out(shape);
        const auto& f = s.file.cast<py_file&>().f;
        std::span<float> dst(out.mutable_data(), size_t(out.size()));
        gguf::result<void> r;
        {
          py::gil_scoped_release unlocked;
          r = gguf::dequantize_tensor(f, *s.t, dst);
        }
        take(std::move(r));
        return out;
      }, doc::Tensor_dequantize)
      .def("quantize", [](const py_tensor& s, py::object type, py::object imatrix) {
        // dequantized (bit-exact) to float32 rows of ne[0], then quantized
        py::object floats = python_object(s).attr("dequantize")();
        return quantize_array(floats, type, imatrix);
      }, py::arg("type"), py::arg("imatrix") = py::none(), doc::Tensor_quantize)
      .def("__repr__", [](const py_tensor& s) {
        std::string ne;
        for (uint32_t i = 0; i < s.t->n_dims; ++i) ne += (i ? ", " : "") + std::to_string(s.t->ne[i]);
        return "<ggufkit.Tensor '" + std::string(s.t->name) + "' " + std::string(gguf::ggml_type_name(s.t->type)) +
               " ne=(" + ne + ")>";
      });
}

}  // namespace ggufkit

PYBIND11_MODULE(_core, m) {
  m.doc() = "ggufkit's extension module (use the ggufkit package)";
  m.attr("__version__") = gguf::version();  // CMakeLists.txt's project version (gguf/version.h)
  ggufkit::register_file(m);
  ggufkit::register_vocab(m);
  ggufkit::register_model(m);
  ggufkit::register_edit(m);
  ggufkit::register_quant(m);
  ggufkit::register_quantize_model(m);
}
