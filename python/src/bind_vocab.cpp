// ggufkit._core: Vocab (llama.cpp-exact tokenizer, batch tokenization, chat templates)
// and the vocabulary's module functions (default_tokenizer_cache_dir).
#include <limits>
#include <memory>

#include "common.h"
#include "docstrings.h"
#include "gguf/chat.h"
#include "gguf/vocab.h"

namespace ggufkit {
namespace {

struct py_vocab {
  gguf::vocab v;
  std::string path;
  std::string cache_dir;  // the compiled tokenizer cache it was loaded with ("" = none)
  py::object ints;  // list of the ints 0 .. n_tokens-1, made on the first encode (see id_list)
  // the file's chat template (tokenizer.chat_template, its tool_use variant), or why not
  std::shared_ptr<const gguf::result<gguf::chat_template>> chat;

  /// The ids as a list of Python ints taken from `ints` (a reference each, no allocation).
  py::list id_list(std::span<const int32_t> ids) {
    if (!ints) {
      const uint32_t n = v.n_tokens();
      PyObject* l = PyList_New(Py_ssize_t(n));
      if (!l) throw py::error_already_set();
      ints = py::reinterpret_steal<py::object>(l);
      for (uint32_t i = 0; i < n; ++i) {
        PyObject* x = PyLong_FromLong(long(i));
        if (!x) throw py::error_already_set();
        PyList_SET_ITEM(l, Py_ssize_t(i), x);
      }
    }
    PyObject* out = PyList_New(Py_ssize_t(ids.size()));
    if (!out) throw py::error_already_set();
    PyObject** src = reinterpret_cast<PyListObject*>(ints.ptr())->ob_item;
    PyObject** dst = reinterpret_cast<PyListObject*>(out)->ob_item;
    for (size_t i = 0; i < ids.size(); ++i) {  // ids of tokenize are in [0, n_tokens)
      PyObject* x = src[ids[i]];
      Py_INCREF(x);
      dst[i] = x;
    }
    return py::reinterpret_steal<py::list>(out);
  }
};

}  // namespace
}  // namespace ggufkit

GGUFKIT_REQUIRE_INITIALIZED(ggufkit::py_vocab)

namespace ggufkit {
namespace {

// Pauses the cyclic garbage collector while in scope (as gc.disable() / gc.enable()).
class gc_paused {
 public:
#if PY_VERSION_HEX >= 0x030A0000
  gc_paused() : was_enabled_(PyGC_Disable()) {}
  ~gc_paused() {
    if (was_enabled_) PyGC_Enable();
  }
#else
  gc_paused() : gc_(py::module_::import("gc")), was_enabled_(gc_.attr("isenabled")().cast<bool>()) {
    gc_.attr("disable")();
  }
  ~gc_paused() {
    if (was_enabled_) gc_.attr("enable")();
  }
#endif
  gc_paused(const gc_paused&) = delete;
  gc_paused& operator=(const gc_paused&) = delete;

 private:
#if PY_VERSION_HEX < 0x030A0000
  py::module_ gc_;
#endif
  int was_enabled_;
};

// The UTF-8 bytes of a str (cached in the object) or a bytes object, without a copy.
std::string_view text_of(PyObject* o) {
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* p = PyUnicode_AsUTF8AndSize(o, &n);
    if (!p) throw py::error_already_set();
    return {p, size_t(n)};
  }
  if (PyBytes_Check(o)) return {PyBytes_AS_STRING(o), size_t(PyBytes_GET_SIZE(o))};
  throw py::type_error(std::string("expected str or bytes, got ") + Py_TYPE(o)->tp_name);
}

py_vocab load_vocab(py::handle src, py::object cache_dir) {
  gguf::file f = file_from(src);
  const std::string dir =
      cache_dir.is_none() ? std::string() : path_string(cache_dir);
  py::gil_scoped_release unlocked;
  auto v = take(gguf::vocab::load(f, gguf::vocab_load_options{dir}));
  auto chat = std::make_shared<const gguf::result<gguf::chat_template>>(gguf::chat_template::load(f, v));
  return py_vocab{std::move(v), f.path(), dir, py::object(), std::move(chat)};
}

std::optional<int32_t> special(int32_t id) {
  if (id == gguf::token_null) return std::nullopt;
  return id;
}

}  // namespace

py::tuple path_state(const std::string& path, const char* what) {
  if (path.empty() || path.front() == '<')
    throw py::type_error(std::string("cannot pickle a ") + what + " not opened from a path (" + path + ")");
  return py::make_tuple(path);
}

int64_t token_id_of(py::handle x) {
  // an int or what operator.index takes (numpy integers); not a float, str, None
  PyObject* i = PyNumber_Index(x.ptr());
  if (!i) {
    PyErr_Clear();
    throw py::type_error("a token id must be an int, not " + std::string(Py_TYPE(x.ptr())->tp_name) + " (" +
                         std::string(py::repr(x)) + ")");
  }
  const py::object id = py::reinterpret_steal<py::object>(i);
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(id.ptr(), &overflow);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (overflow || v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    throw gguf::exception(gguf::make_error(gguf::errc::out_of_range, gguf::no_offset,
                                           "token id " + std::string(py::str(id)) + " out of range (not an int32)"));
  return v;
}

std::vector<int32_t> ids_of(py::handle seq) {
  if (py::isinstance<py::str>(seq) || py::isinstance<py::bytes>(seq))  // not its characters (hunt-py #7)
    throw py::type_error("token ids must be a sequence of int, not " + std::string(Py_TYPE(seq.ptr())->tp_name));
  std::vector<int32_t> ids;
  for (py::handle x : seq) ids.push_back(int32_t(token_id_of(x)));
  return ids;
}

std::vector<int32_t> encode(const gguf::vocab& v, std::string_view text, bool add_special, bool parse_special) {
  std::vector<int32_t> ids;
  gguf::result<void> r;
  {
    py::gil_scoped_release unlocked;
    r = v.tokenize_into(text, ids, add_special, parse_special);
  }
  take(std::move(r));
  return ids;
}

void register_vocab(py::module_& m) {
  m.def("default_tokenizer_cache_dir", [] { return gguf::default_tokenizer_cache_dir(); },
        doc::default_tokenizer_cache_dir);
  py::class_<py_vocab>(m, "Vocab", doc::Vocab)
      .def(py::init([](py::object path_or_file, py::object cache_dir) { return load_vocab(path_or_file, cache_dir); }),
           py::arg("path_or_file"), py::arg("cache_dir") = py::none(), doc::Vocab_init)
      .def("encode",
           [](py_vocab& s, py::object text, bool add_special, bool parse_special) {
             return s.id_list(encode(s.v, text_of(text.ptr()), add_special, parse_special));
           },
           py::arg("text"), py::arg("add_special") = true, py::arg("parse_special") = true, doc::Vocab_encode)
      .def("encode_batch",
           [](py_vocab& s, py::object texts, bool add_special, bool parse_special, int threads) {
             // a str (or bytes) is one text, not a sequence of texts: its characters would each
             // be tokenized as a text (hunt-py #13; as edit(remove="key"), issue 29 item 6)
             if (py::isinstance<py::str>(texts) || py::isinstance<py::bytes>(texts))
               throw py::type_error("encode_batch takes an iterable of texts, not a single " +
                                    std::string(Py_TYPE(texts.ptr())->tp_name) + " (use encode(text))");
             if (threads < 0) throw py::value_error("threads must be >= 0 (0: every core), not " + std::to_string(threads));
             // a tuple of the texts (a tuple as it is): it holds them while the threads read
             // their UTF-8, whatever other Python threads do with the caller's list
             PyObject* seq = PySequence_Tuple(texts.ptr());
             if (!seq) throw py::error_already_set();
             const py::object hold = py::reinterpret_steal<py::object>(seq);
             const size_t n = size_t(PySequence_Fast_GET_SIZE(seq));
             PyObject** items = PySequence_Fast_ITEMS(seq);
             std::vector<std::string_view> views(n);
             for (size_t i = 0; i < n; ++i) views[i] = text_of(items[i]);
             gguf::result<std::vector<std::vector<int32_t>>> r{std::vector<std::vector<int32_t>>{}};
             {
               py::gil_scoped_release unlocked;
               r = s.v.tokenize_batch(views, unsigned(threads), add_special, parse_special);
             }
             const auto ids = take(std::move(r));
             PyObject* out = PyList_New(Py_ssize_t(n));
             if (!out) throw py::error_already_set();
             py::list result = py::reinterpret_steal<py::list>(out);
             {
               // no collection per 700 new lists (a batch makes one list per text): the
               // collector sees them all at once afterwards
               gc_paused paused;
               for (size_t i = 0; i < n; ++i) PyList_SET_ITEM(out, Py_ssize_t(i), s.id_list(ids[i]).release().ptr());
             }
             return result;
           },
           py::arg("texts"), py::arg("add_special") = true, py::arg("parse_special") = true, py::arg("threads") = 0,
           doc::Vocab_encode_batch)
      .def("decode",
           [](const py_vocab& s, py::object ids, bool remove_special, bool unparse_special) {
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
           py::arg("ids"), py::arg("remove_special") = false, py::arg("unparse_special") = false, doc::Vocab_decode)
      .def("token_to_piece",
           [](const py_vocab& s, py::object token) {
             const int64_t id = token_id_of(token);
             // an id outside the vocabulary raises, as decode does (issue 29, item 18)
             if (id < 0 || uint64_t(id) >= s.v.n_tokens())
               throw gguf::exception(gguf::make_error(gguf::errc::out_of_range, gguf::no_offset,
                                                      "token id " + std::to_string(id) + " is outside the vocabulary (" +
                                                          std::to_string(s.v.n_tokens()) + " tokens)"));
             return text_replace(s.v.token_to_piece(int32_t(id), true));
           },
           py::arg("id"), doc::Vocab_token_to_piece)
      .def("apply_chat_template",
           [](py_vocab& s, py::object messages, py::object tools, bool add_generation_prompt, bool tokenize, bool server,
              py::kwargs kwargs) -> py::object {
             auto dumps = py::module_::import("json").attr("dumps");
             // transformers' chat_template= argument: a template text (or a built-in name) instead of the file's
             std::optional<gguf::chat_template> own;
             if (kwargs.contains("chat_template")) {
               py::object t = kwargs["chat_template"];
               PyDict_DelItemString(kwargs.ptr(), "chat_template");
               if (!t.is_none()) own = take(gguf::chat_template::from_source(py::str(t), s.chat->ok() ? (**s.chat).tokens() : gguf::chat_tokens{}));
             }
             if (!own && !*s.chat) take(gguf::result<void>(s.chat->error()));
             const gguf::chat_template& tmpl = own ? *own : **s.chat;
             gguf::chat_request req;
             req.messages_json = py::str(dumps(messages));
             req.tools_json = tools.is_none() ? std::string() : std::string(py::str(dumps(tools)));
             req.add_generation_prompt = add_generation_prompt;
             req.kwargs_json = py::str(dumps(kwargs));
             std::string prompt;
             std::vector<int32_t> ids;
             {
               py::gil_scoped_release unlocked;
               prompt = take(tmpl.apply(req, server ? gguf::chat_mode::server : gguf::chat_mode::transformers));
               // transformers tokenizes the rendered chat with add_special_tokens=False (the
               // template wrote them); llama-server tokenizes its prompt with add_special
               if (tokenize) ids = take(s.v.tokenize(prompt, server, true));
             }
             if (tokenize) return s.id_list(ids);
             return text_replace(prompt);
           },
           py::arg("messages"), py::arg("tools") = py::none(), py::arg("add_generation_prompt") = false,
           py::arg("tokenize") = false, py::arg("server") = false, doc::Vocab_apply_chat_template)
      .def_property_readonly("chat_template_caps",
                             [](const py_vocab& s) -> py::object {
                               if (!*s.chat) return py::none();
                               const auto c = (**s.chat).caps();
                               py::dict d;
                               for (const auto& f : gguf::chat_caps_fields) d[f.name] = c.*f.member;
                               return d;
                             }, doc::Vocab_chat_template_caps)
      .def_property_readonly("n_tokens", [](const py_vocab& s) { return s.v.n_tokens(); }, doc::Vocab_n_tokens)
      .def_property_readonly("bos", [](const py_vocab& s) { return special(s.v.bos()); }, doc::Vocab_bos)
      .def_property_readonly("eos", [](const py_vocab& s) { return special(s.v.eos()); }, doc::Vocab_eos)
      .def_property_readonly("type", [](const py_vocab& s) { return std::string(gguf::vocab_type_name(s.v.type())); },
                             doc::Vocab_type)
      .def_property_readonly("path", [](const py_vocab& s) { return s.path; }, doc::Vocab_path)
      .def_property_readonly("cache_dir", [](const py_vocab& s) { return s.cache_dir.empty() ? py::object(py::none()) : py::object(py::str(s.cache_dir)); },
                             doc::Vocab_cache_dir)
      .def_property_readonly("from_cache", [](const py_vocab& s) { return s.v.from_cache(); }, doc::Vocab_from_cache)
      .def(py::pickle(
          [](const py_vocab& s) {
            py::tuple p = path_state(s.path, "Vocab");
            return py::make_tuple(p[0], s.cache_dir.empty() ? py::object(py::none()) : py::object(py::str(s.cache_dir)));
          },
          [](py::tuple t) { return load_vocab(t[0], t.size() > 1 ? py::object(t[1]) : py::object(py::none())); }))
      .def("__repr__", [](const py_vocab& s) {
        return "<ggufkit.Vocab '" + s.path + "' " + std::string(gguf::vocab_type_name(s.v.type())) + ", " +
               std::to_string(s.v.n_tokens()) + " tokens>";
      });
}

}  // namespace ggufkit
