// ggufkit._core: Vocab (llama.cpp-exact tokenizer), Model (hparams, token embeddings)
// and edit (metadata edits written atomically).
#include <cmath>
#include <limits>
#include <optional>

#include "../../tools/gguf/hparams_json.h"
#include "common.h"
#include "gguf/model.h"
#include "gguf/vocab.h"
#include "gguf/writer.h"

namespace ggufkit {
namespace {

struct py_vocab {
  gguf::vocab v;
  std::string path;
};

struct py_model {
  gguf::file f;
  gguf::model m;
  std::optional<gguf::vocab> v;  // loaded on the first embed of a text
};

// The reopen-by-path state of a picklable object.
py::tuple path_state(const std::string& path, const char* what) {
  if (path.empty() || path.front() == '<')
    throw py::type_error(std::string("cannot pickle a ") + what + " not opened from a path (" + path + ")");
  return py::make_tuple(path);
}

std::vector<int32_t> ids_of(py::handle seq) {
  std::vector<int32_t> ids;
  for (py::handle x : seq) {
    const long long id = x.cast<long long>();
    if (id < std::numeric_limits<int32_t>::min() || id > std::numeric_limits<int32_t>::max())
      throw gguf::exception(gguf::make_error(gguf::errc::out_of_range, gguf::no_offset,
                                             "token id " + std::to_string(id) + " out of range"));
    ids.push_back(int32_t(id));
  }
  return ids;
}

py_vocab load_vocab(py::handle src) {
  gguf::file f = file_from(src);
  py::gil_scoped_release unlocked;
  auto v = take(gguf::vocab::load(f));
  return py_vocab{std::move(v), f.path()};
}

py_model load_model(py::handle src) {
  gguf::file f = file_from(src);
  py::gil_scoped_release unlocked;
  auto m = take(gguf::model::load(f));
  return py_model{f, std::move(m), std::nullopt};
}

std::vector<int32_t> encode(const gguf::vocab& v, std::string_view text, bool add_special, bool parse_special) {
  std::vector<int32_t> ids;
  bool ok;
  {
    py::gil_scoped_release unlocked;
    ok = v.tokenize_into(text, ids, add_special, parse_special);
  }
  if (!ok) take(v.tokenize(text, add_special, parse_special));  // the error
  return ids;
}

std::optional<int32_t> special(int32_t id) {
  if (id == gguf::token_null) return std::nullopt;
  return id;
}

}  // namespace

void register_vocab(py::module_& m) {
  py::class_<py_vocab>(m, "Vocab")
      .def(py::init(&load_vocab), py::arg("path_or_file"))
      .def("encode",
           [](const py_vocab& s, std::string_view text, bool add_special, bool parse_special) {
             return id_list(encode(s.v, text, add_special, parse_special));
           },
           py::arg("text"), py::arg("add_special") = true, py::arg("parse_special") = true)
      .def("encode_batch",
           [](const py_vocab& s, py::handle texts, bool add_special, bool parse_special, unsigned threads) {
             py::list items(py::reinterpret_borrow<py::object>(texts));  // holds the texts while the threads read their UTF-8
             std::vector<std::string_view> views;
             views.reserve(items.size());
             for (py::handle t : items) views.push_back(t.cast<std::string_view>());
             gguf::result<std::vector<std::vector<int32_t>>> r{std::vector<std::vector<int32_t>>{}};
             {
               py::gil_scoped_release unlocked;
               r = s.v.tokenize_batch(views, threads, add_special, parse_special);
             }
             const auto ids = take(std::move(r));
             py::list out(ids.size());
             for (size_t i = 0; i < ids.size(); ++i) out[i] = id_list(ids[i]);
             return out;
           },
           py::arg("texts"), py::arg("add_special") = true, py::arg("parse_special") = true, py::arg("threads") = 0)
      .def("decode",
           [](const py_vocab& s, py::handle ids, bool remove_special, bool unparse_special) {
             const auto v = ids_of(ids);
             for (int32_t id : v)
               if (id < 0 || uint32_t(id) >= s.v.n_tokens())
                 throw gguf::exception(gguf::make_error(gguf::errc::out_of_range, gguf::no_offset,
                                                        "token id " + std::to_string(id) + " out of range (n_tokens " +
                                                            std::to_string(s.v.n_tokens()) + ")"));
             std::string text;
             {
               py::gil_scoped_release unlocked;
               text = s.v.detokenize(v, remove_special, unparse_special);
             }
             return text_replace(text);
           },
           py::arg("ids"), py::arg("remove_special") = false, py::arg("unparse_special") = false)
      .def("token_to_piece", [](const py_vocab& s, int32_t id) { return text_replace(s.v.token_to_piece(id, true)); },
           py::arg("id"))
      .def_property_readonly("n_tokens", [](const py_vocab& s) { return s.v.n_tokens(); })
      .def_property_readonly("bos", [](const py_vocab& s) { return special(s.v.bos()); })
      .def_property_readonly("eos", [](const py_vocab& s) { return special(s.v.eos()); })
      .def_property_readonly("type", [](const py_vocab& s) { return std::string(gguf::vocab_type_name(s.v.type())); })
      .def_property_readonly("path", [](const py_vocab& s) { return s.path; })
      .def(py::pickle([](const py_vocab& s) { return path_state(s.path, "Vocab"); },
                      [](py::tuple t) { return load_vocab(t[0]); }))
      .def("__repr__", [](const py_vocab& s) {
        return "<ggufkit.Vocab '" + s.path + "' " + std::string(gguf::vocab_type_name(s.v.type())) + ", " +
               std::to_string(s.v.n_tokens()) + " tokens>";
      });
}

void register_model(py::module_& m) {
  py::class_<py_model>(m, "Model")
      .def(py::init(&load_model), py::arg("path_or_file"))
      .def_property_readonly("architecture", [](const py_model& s) { return std::string(s.m.arch().name); })
      .def_property_readonly("hparams", [](const py_model& s) {
        return py::module_::import("json").attr("loads")(gguf::cli::hparams_json(s.m.hparams()).dump());
      })
      .def("embed",
           [](py_model& s, py::handle text_or_ids, bool add_special) {
             const auto te = take(s.m.token_embd());
             const size_t n_embd = te->ne[0];
             std::vector<int32_t> ids;
             if (py::isinstance<py::str>(text_or_ids) || py::isinstance<py::bytes>(text_or_ids)) {
               if (!s.v) {
                 py::gil_scoped_release unlocked;
                 s.v = take(gguf::vocab::load(s.f));
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
           py::arg("text_or_ids"), py::arg("add_special") = true)
      .def(py::pickle([](const py_model& s) { return path_state(s.f.path(), "Model"); },
                      [](py::tuple t) { return load_model(t[0]); }))
      .def("__repr__", [](const py_model& s) {
        return "<ggufkit.Model '" + s.f.path() + "' " + std::string(s.m.arch().name) + ">";
      });
}

}  // namespace ggufkit
