// ggufkit._core: row quantization (gguf::quantize_rows) over numpy arrays:
// quantize_rows(array, type, imatrix=None) and the helper Tensor.quantize uses.
#include <string>

#include "common.h"
#include "docstrings.h"
#include "gguf/format.h"
#include "gguf/quant.h"

namespace ggufkit {
namespace {

gguf::ggml_type type_from(py::handle type) {
  if (py::isinstance<py::int_>(type)) {
    const auto id = type.cast<long long>();
    if (id < 0 || id >= gguf::ggml_type_count || !gguf::is_valid_ggml_type(static_cast<uint32_t>(id))) {
      throw gguf::exception(gguf::make_error(gguf::errc::invalid_ggml_type, gguf::no_offset,
                                             "unknown ggml type id " + std::to_string(id)));
    }
    return static_cast<gguf::ggml_type>(id);
  }
  const auto name = type.cast<std::string>();
  const auto t = gguf::ggml_type_from_name(name);
  if (!t) {
    throw gguf::exception(gguf::make_error(gguf::errc::invalid_ggml_type, gguf::no_offset,
                                           "unknown ggml type name '" + name + "'"));
  }
  return *t;
}

}  // namespace

py::array quantize_array(py::handle array, py::handle type, py::handle imatrix) {
  const gguf::ggml_type t = type_from(type);
  auto x = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(array);
  if (!x) throw py::type_error("quantize_rows: array must be convertible to float32");
  if (x.ndim() == 0) throw py::value_error("quantize_rows: array must have at least one dimension (rows of n_per_row)");
  const int64_t n_per_row = x.shape(x.ndim() - 1);
  const int64_t nrows = n_per_row ? x.size() / n_per_row : 0;
  py::array_t<float, py::array::c_style | py::array::forcecast> w;
  const float* wp = nullptr;
  if (!imatrix.is_none()) {
    w = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(imatrix);
    if (!w || w.ndim() != 1 || w.shape(0) != n_per_row) {
      throw py::value_error("quantize_rows: imatrix must be a 1-D array of n_per_row (" + std::to_string(n_per_row) +
                            ") float32 weights");
    }
    wp = w.data();
  }
  // Checks of type and shape first (quantize_rows on zero rows), so the size is known.
  take(gguf::quantize_rows(t, nullptr, nullptr, 0, n_per_row, wp));
  const uint64_t row_size = take(gguf::ggml_row_size(t, static_cast<uint64_t>(n_per_row)));
  std::vector<py::ssize_t> shape(x.shape(), x.shape() + x.ndim());
  shape.back() = static_cast<py::ssize_t>(row_size);
  py::array_t<uint8_t> out(shape);
  gguf::result<std::size_t> r = std::size_t{0};
  {
    py::gil_scoped_release unlocked;
    r = gguf::quantize_rows(t, x.data(), out.mutable_data(), nrows, n_per_row, wp);
  }
  take(std::move(r));
  return out;
}

void register_quant(py::module_& m) {
  m.def("quantize_rows", [](py::object array, py::object type, py::object imatrix) { return quantize_array(array, type, imatrix); },
        py::arg("array"), py::arg("type"), py::arg("imatrix") = py::none(), doc::quantize_rows);
  m.def("can_quantize", [](py::object type) { return gguf::can_quantize(type_from(type)); }, py::arg("type"),
        doc::can_quantize);
  m.def("quantize_requires_imatrix", [](py::object type) { return gguf::quantize_requires_imatrix(type_from(type)); },
        py::arg("type"), doc::quantize_requires_imatrix);
}

}  // namespace ggufkit
