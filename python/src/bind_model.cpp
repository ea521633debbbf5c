// ggufkit._core: Model (architecture, hparams, token embeddings).
#include <memory>
#include <mutex>
#include <optional>

#include "common.h"
#include "docstrings.h"
#include "gguf/model.h"
#include "gguf/model_files.h"
#include "gguf/vocab.h"

namespace ggufkit {
namespace {

struct py_model {
  gguf::file f;
  gguf::model m;
  std::optional<gguf::vocab> v;  // loaded on the first embed of a text, once (v_once)
  // (threads may make that first call together: the GIL is released while loading)
  std::unique_ptr<std::once_flag> v_once = std::make_unique<std::once_flag>();
};

}  // namespace
}  // namespace ggufkit

GGUFKIT_REQUIRE_INITIALIZED(ggufkit::py_model)

namespace ggufkit {
namespace {

py_model load_model(py::handle src) {
  gguf::file f = file_from(src);
  py::gil_scoped_release unlocked;
  // A shard of a split model (any shard) is read as the whole model, as the command line
  // does (issue 29, item 18): the first shard's metadata, every shard's tensors.
  if (f.find(gguf::kv_split_count)) {
    auto set = gguf::model_files::from_file(f, [](const std::string& p) { return gguf::file::open_any(p); });
    if (!set) {
      gguf::error e = std::move(set).error();
      e.detail = f.path() + ": " + e.detail;
      throw gguf::exception(std::move(e));
    }
    f = set->merged();
  }
  auto m = take(gguf::model::load(f));
  return py_model{f, std::move(m), std::nullopt, std::make_unique<std::once_flag>()};
}

}  // namespace

void register_model(py::module_& m) {
  py::class_<py_model>(m, "Model", doc::Model)
      .def(py::init([](py::object path_or_file) { return load_model(path_or_file); }), py::arg("path_or_file"),
           doc::Model_init)
      .def_property_readonly("architecture", [](const py_model& s) { return std::string(s.m.arch().name); },
                             doc::Model_architecture)
      .def_property_readonly("hparams", [](const py_model& s) {
        return py::module_::import("json").attr("loads")(gguf::hparams_json(s.m.hparams()));
      }, doc::Model_hparams)
      .def("embed",
           [](py_model& s, py::object text_or_ids, bool add_special) {
             const auto te = take(s.m.token_embd());
             const size_t n_embd = te->ne[0];
             std::vector<int32_t> ids;
             if (py::isinstance<py::str>(text_or_ids) || py::isinstance<py::bytes>(text_or_ids)) {
               {
                 py::gil_scoped_release unlocked;
                 // a failed load leaves the flag unset: the next call tries again
                 std::call_once(*s.v_once, [&] { s.v = take(gguf::vocab::load(s.f)); });
               }
               ids = encode(*s.v, text_or_ids.cast<std::string_view>(), add_special, /*parse_special=*/false);
             } else {
               ids = ids_of(text_or_ids);
             }
             py::array_t<float> out({py::ssize_t(ids.size()), py::ssize_t(n_embd)});
             std::span<float> dst(out.mutable_data(), size_t(out.size()));
             gguf::result<void> r;
             {
               py::gil_scoped_release unlocked;
               r = s.m.get_token_embeddings(ids, dst);
             }
             take(std::move(r));
             return out;
           },
           py::arg("text_or_ids"), py::arg("add_special") = true, doc::Model_embed)
      .def(py::pickle([](const py_model& s) { return path_state(s.f.path(), "Model"); },
                      [](py::tuple t) { return load_model(t[0]); }))
      .def("__repr__", [](const py_model& s) {
        return "<ggufkit.Model '" + s.f.path() + "' " + std::string(s.m.arch().name) + ">";
      });
}

}  // namespace ggufkit
