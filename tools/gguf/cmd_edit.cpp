// gguf edit FILE [-o OUT] [--set K=V] [--set-file K=PATH] [--set-json K=JSON] [--rm K]
//           [--chat-template T] [--chat-template-file P] [--pre-tokenizer NAME]
//           [--special-token NAME TEXT] [--special-token-by-id NAME ID] [edit flags]
// gguf set FILE KEY VALUE [--type T] [edit flags]     gguf rm FILE KEY [edit flags]
//
// Edits go through gguf::edit (gguf/edit.h): in place when the new metadata fits before
// the data section (journaled), else a streamed rewrite through a temp file and rename.
// An edit that adds validation errors is refused unless --force.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "edit_support.h"
#include "gguf/chat.h"
#include "gguf/keys.h"
#include "gguf/vocab.h"
#include "gguf/writer.h"

namespace gguf::cli::cmd_edit {
namespace {

constexpr const char* types_help =
    "uint8 int8 uint16 int16 uint32 int32 float32 bool string uint64 int64 float64";

int usage(const std::string& cmd, const std::string& msg) {
  std::cerr << "gguf " << cmd << ": " << msg << "\n";
  return exit_usage;
}

// Checks a set the way writer::set will (key syntax, general.alignment) so that a bad
// key or value is a usage error before the file is touched.
std::optional<std::string> bad_set(const std::string& key, const value& v) {
  writer probe;
  if (auto r = probe.set(key, v); !r) return r.error().message();
  return std::nullopt;
}

// KEY=VALUE or KEY:TYPE=VALUE: the text after the last ':' before '=' is always a TYPE
// (a key that itself holds ':' is given with its type, KEY:TYPE=VALUE), so that a
// misspelled type is an error, not a new key named after it.
struct key_spec {
  std::string key, type, rest;
  std::string bad_type;  // a TYPE that names no type (the spec is refused)
};
std::optional<key_spec> split_spec(const std::string& s) {
  auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  key_spec k{s.substr(0, eq), "", s.substr(eq + 1), ""};
  if (auto colon = k.key.rfind(':'); colon != std::string::npos) {
    std::string type = k.key.substr(colon + 1);
    if (value_type_from_name(type) && type != "array") k.type = std::move(type);
    else k.bad_type = std::move(type);
    k.key.resize(colon);
  }
  return k;
}

int bad_type(const std::string& cmd, const char* opt, const std::string& spec, const std::string& type) {
  return usage(cmd, std::string(opt) + " '" + spec + "': '" + type + "' is not a TYPE (" + types_help +
                        "); a key that holds ':' is given as KEY:TYPE=...");
}

std::optional<std::string> read_text_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// tokenizer.ggml.NAME_token_id for NAME (the key's own spelling, or unk / sep / pad).
std::optional<std::string> special_key(std::string name) {
  if (name == "unk") name = "unknown";
  if (name == "sep") name = "seperator";
  if (name == "pad") name = "padding";
  std::string key = "tokenizer.ggml." + name + "_token_id";
  for (auto k : special_token_keys()) {
    if (k == key) return key;
  }
  return std::nullopt;
}

std::string special_names() {
  std::string out;
  for (auto k : special_token_keys()) {
    std::string_view s = k.substr(std::string_view("tokenizer.ggml.").size());
    s.remove_suffix(std::string_view("_token_id").size());
    if (!out.empty()) out += ' ';
    out += s;
  }
  return out;
}

struct edit_args {
  std::string path;
  std::vector<std::string> sets, set_files, set_jsons, removes;
  std::string chat_template, chat_template_file, pre_tokenizer;
  bool have_chat_template = false;
  std::vector<std::string> special, special_by_id;  // pairs
  edit_flags flags;
};

// Builds the operations: removals first, then sets in the order of the options above.
int build_ops(const edit_args& a, const file& f, std::vector<edit_op>& ops) {
  const std::string cmd = "edit";
  for (const auto& k : a.removes) ops.push_back(edit_op::remove(k));
  auto add = [&](const std::string& key, result<value> v) -> int {
    if (!v) return usage(cmd, key + ": " + v.error().message());
    if (auto why = bad_set(key, *v)) return usage(cmd, *why);
    ops.push_back(edit_op::set(key, std::move(*v)));
    return 0;
  };
  for (const auto& s : a.sets) {
    auto k = split_spec(s);
    if (!k) return usage(cmd, "--set takes KEY=VALUE or KEY:TYPE=VALUE, not '" + s + "'");
    if (!k->bad_type.empty()) return bad_type(cmd, "--set", s, k->bad_type);
    value_type t = value_type::string;
    if (!k->type.empty()) t = *value_type_from_name(k->type);
    else if (auto old = f.find(k->key)) t = old->type();
    if (t == value_type::array) return usage(cmd, k->key + " is an array: give it with --set-json");
    if (int rc = add(k->key, value::parse(t, k->rest))) return rc;
  }
  for (const auto& s : a.set_files) {
    auto k = split_spec(s);
    if (!k) return usage(cmd, "--set-file takes KEY=PATH, not '" + s + "'");
    if (!k->bad_type.empty()) return bad_type(cmd, "--set-file", s, k->bad_type);
    if (!k->type.empty() && k->type != "string")
      return usage(cmd, "--set-file sets a string, not a " + k->type + " ('" + s + "')");
    auto text = read_text_file(k->rest);
    if (!text) return usage(cmd, "cannot read " + k->rest);
    if (int rc = add(k->key, value::string(*text))) return rc;
  }
  for (const auto& s : a.set_jsons) {
    auto k = split_spec(s);
    if (!k) return usage(cmd, "--set-json takes KEY=JSON or KEY:TYPE=JSON, not '" + s + "'");
    if (!k->bad_type.empty()) return bad_type(cmd, "--set-json", s, k->bad_type);
    auto j = nlohmann::json::parse(k->rest, nullptr, false);
    if (j.is_discarded()) return usage(cmd, k->key + ": not valid JSON: " + k->rest);
    std::optional<value_shape> shape;
    if (!k->type.empty()) {
      value_shape sh{*value_type_from_name(k->type), 0};
      for (const auto* p = &j; p->is_array() && !p->empty(); p = &(*p)[0]) ++sh.depth;
      if (j.is_array() && j.empty()) sh.depth = 1;
      shape = sh;
    } else if (auto old = f.find(k->key)) {
      shape = shape_of(*old);
    }
    if (int rc = add(k->key, json_to_value(j, shape))) return rc;
  }
  // a chat template that does not parse is refused unless --force (gguf/chat.h)
  auto check_template = [&](const std::string& text, const std::string& what) -> std::optional<int> {
    if (a.flags.force) return std::nullopt;
    auto t = chat_template::from_source(text);
    if (t) return std::nullopt;
    std::fprintf(stderr, "gguf edit: %s: the chat template does not parse: %s (use --force to write it anyway)\n",
                 what.c_str(), t.error().detail.c_str());
    return exit_invalid;
  };
  if (a.have_chat_template) {
    if (auto rc = check_template(a.chat_template, "--chat-template")) return *rc;
    ops.push_back(edit_op::set("tokenizer.chat_template", value::string(a.chat_template)));
  }
  if (!a.chat_template_file.empty()) {
    auto text = read_text_file(a.chat_template_file);
    if (!text) return usage(cmd, "cannot read " + a.chat_template_file);
    if (auto rc = check_template(*text, a.chat_template_file)) return *rc;
    ops.push_back(edit_op::set("tokenizer.chat_template", value::string(*text)));
  }
  if (!a.pre_tokenizer.empty()) {
    auto known = known_pre_tokenizers();
    if (std::find(known.begin(), known.end(), a.pre_tokenizer) == known.end()) {
      std::string list;
      for (auto n : known) list += (list.empty() ? "" : " ") + std::string(n);
      return usage(cmd, "--pre-tokenizer '" + a.pre_tokenizer + "' is not a pre-tokenizer llama.cpp knows: " + list);
    }
    ops.push_back(edit_op::set("tokenizer.ggml.pre", value::string(a.pre_tokenizer)));
  }
  auto tokens = f.get_array("tokenizer.ggml.tokens");
  for (size_t i = 0; i + 1 < a.special.size(); i += 2) {
    auto key = special_key(a.special[i]);
    if (!key) return usage(cmd, "unknown special token '" + a.special[i] + "' (one of: " + special_names() + ")");
    if (!tokens || tokens->element_type() != value_type::string) {
      return usage(cmd, "--special-token needs the vocabulary (tokenizer.ggml.tokens), which this file lacks");
    }
    std::vector<uint64_t> ids;
    (void)tokens->for_each_string([&](uint64_t id, std::string_view s) {
      if (s == a.special[i + 1]) ids.push_back(id);
    });
    if (ids.empty()) return usage(cmd, "no token '" + a.special[i + 1] + "' in the vocabulary");
    if (ids.size() > 1) {
      std::cerr << "gguf edit: '" << a.special[i + 1] << "' is token " << ids[0] << " and " << ids.size() - 1
                << " more; using " << ids[0] << " (--special-token-by-id picks another)\n";
    }
    ops.push_back(edit_op::set(*key, value::u32(static_cast<uint32_t>(ids[0]))));
  }
  for (size_t i = 0; i + 1 < a.special_by_id.size(); i += 2) {
    auto key = special_key(a.special_by_id[i]);
    if (!key) return usage(cmd, "unknown special token '" + a.special_by_id[i] + "' (one of: " + special_names() + ")");
    uint64_t id = 0;
    auto v = value::parse(value_type::uint32, a.special_by_id[i + 1]);
    if (!v) return usage(cmd, "token id '" + a.special_by_id[i + 1] + "' is not a uint32");
    std::memcpy(&id, v->payload().data(), 4);
    if (!tokens) return usage(cmd, "--special-token-by-id needs the vocabulary (tokenizer.ggml.tokens)");
    if (id >= tokens->size()) {
      return usage(cmd, "token id " + std::to_string(id) + " is not in the vocabulary (" +
                            std::to_string(tokens->size()) + " tokens)");
    }
    ops.push_back(edit_op::set(*key, std::move(*v)));
  }
  return 0;
}

// Parses with values that may start with '-' (see values_may_start_with_dash).
std::optional<int> parse_values(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args;
  try {
    args = values_may_start_with_dash(app, argc, argv);
  } catch (const CLI::ParseError& e) {
    std::cerr << "gguf " << app.get_name() << ": " << e.what() << " (see --help)\n";
    return exit_usage;
  }
  std::vector<char*> ptrs;
  for (auto& s : args) ptrs.push_back(s.data());
  return parse(app, static_cast<int>(ptrs.size()), ptrs.data());
}

int run_edit_cmd(int argc, char** argv) {
  CLI::App app{"Edit the metadata of a GGUF file: in place when the new metadata fits before the data section "
               "(journaled, crash-safe), otherwise a streamed rewrite (temp file beside it, renamed over it). "
               "Removals apply first, then sets in option order. An edit that makes the file invalid is "
               "refused unless --force.",
               "edit"};
  edit_args a;
  app.add_option("FILE", a.path, "GGUF file to edit")->required();
  app.add_option("--set", a.sets,
                 "KEY=VALUE: an existing key keeps its type; a new key is a string unless given as "
                 "KEY:TYPE=VALUE (TYPE: " + std::string(types_help) + "; text after the last ':' is always a TYPE)")
      ->allow_extra_args(false);
  app.add_option("--set-file", a.set_files, "KEY=PATH: a string value read from a file (e.g. a chat template)")
      ->allow_extra_args(false);
  app.add_option("--set-json", a.set_jsons,
                 "KEY=JSON: a value given as JSON, arrays included (string arrays, arrays of arrays); an existing "
                 "key keeps its element type, a new one follows gguf-py (int32, float32, string, bool) unless "
                 "KEY:TYPE=JSON gives the element type")
      ->allow_extra_args(false);
  app.add_option("--rm", a.removes, "KEY to remove")->allow_extra_args(false);
  app.add_option("--chat-template", a.chat_template, "set tokenizer.chat_template to this text");
  app.add_option("--chat-template-file", a.chat_template_file, "set tokenizer.chat_template from this file");
  app.add_option("--pre-tokenizer", a.pre_tokenizer,
                 "set tokenizer.ggml.pre (refused unless llama.cpp knows the pre-tokenizer)");
  app.add_option("--special-token", a.special,
                 "NAME TEXT: set tokenizer.ggml.NAME_token_id to the id of the token TEXT (NAME: " + special_names() +
                     "; unk sep pad also; repeatable)")
      ->type_size(2)
      ->expected(1, 64)  // issue 29, item 13: repeatable, each time a pair
      ->allow_extra_args(false);
  app.add_option("--special-token-by-id", a.special_by_id,
                 "NAME ID: set tokenizer.ggml.NAME_token_id to ID (checked against the vocabulary size; repeatable)")
      ->type_size(2)
      ->expected(1, 64)
      ->allow_extra_args(false);
  add_edit_flags(app, a.flags, true);
  if (auto rc = parse_values(app, argc, argv)) return *rc;
  a.have_chat_template = app.count("--chat-template") > 0;
  if (auto rc = check_edit_paths("edit", a.path, a.flags)) return *rc;

  if (!a.flags.dry_run) {
    if (auto r = finish_interrupted_edit(a.path); !r) return report(a.path, r.error());
  }
  auto f = file::open(a.path);
  if (!f) return report(a.path, f.error());
  std::vector<edit_op> ops;
  if (int rc = build_ops(a, *f, ops)) return rc;
  if (ops.empty()) return usage("edit", "nothing to do (give --set, --rm, … ; see --help)");
  return run_edit(a.path, ops, a.flags, "edit");
}

int run_set(int argc, char** argv) {
  CLI::App app{"Set a metadata key of a GGUF file (short form of gguf edit --set). An existing key keeps its "
               "type unless --type is given; a new key needs --type. Negative numbers and -inf are values.",
               "set"};
  std::string path, key, text, type_name;
  edit_flags flags;
  app.add_option("FILE", path, "GGUF file to edit")->required();
  app.add_option("KEY", key, "metadata key, e.g. general.name")->required();
  app.add_option("VALUE", text, "new value as text (numbers in decimal, bool as true/false)")->required();
  app.add_option("--type", type_name, std::string("value type: ") + types_help);
  add_edit_flags(app, flags, true);
  if (auto rc = parse_values(app, argc, argv)) return *rc;
  if (auto rc = check_edit_paths("set", path, flags)) return *rc;

  if (!flags.dry_run) {
    if (auto r = finish_interrupted_edit(path); !r) return report(path, r.error());
  }
  auto f = file::open(path);
  if (!f) return report(path, f.error());
  value_type type{};
  if (!type_name.empty()) {
    auto t = value_type_from_name(type_name);
    if (!t || *t == value_type::array) return usage("set", "unknown or unsupported --type '" + type_name + "' (see --help)");
    type = *t;
  } else if (auto existing = f->find(key)) {
    type = existing->type();
    if (type == value_type::array) return usage("set", key + " is an array: use gguf edit --set-json");
  } else {
    return usage("set", key + " is not in " + path + "; give its --type (see --help)");
  }
  auto v = value::parse(type, text);
  if (!v) return usage("set", v.error().message());
  if (auto why = bad_set(key, *v)) return usage("set", *why);
  std::vector<edit_op> ops{edit_op::set(key, std::move(*v))};
  return run_edit(path, ops, flags, "set");
}

int run_rm(int argc, char** argv) {
  CLI::App app{"Remove a metadata key from a GGUF file (short form of gguf edit --rm).", "rm"};
  std::string path, key;
  edit_flags flags;
  app.add_option("FILE", path, "GGUF file to edit")->required();
  app.add_option("KEY", key, "metadata key to remove")->required();
  add_edit_flags(app, flags, true);
  if (auto rc = parse_values(app, argc, argv)) return *rc;
  if (auto rc = check_edit_paths("rm", path, flags)) return *rc;
  std::vector<edit_op> ops{edit_op::remove(key)};
  return run_edit(path, ops, flags, "rm");
}

const registrar reg_edit{"edit", "edit metadata: --set/--rm/--set-json/… in one pass (in place when it fits)",
                         run_edit_cmd};
const registrar reg_set{"set", "set a metadata key (short form of edit)", run_set};
const registrar reg_rm{"rm", "remove a metadata key (short form of edit)", run_rm};

}  // namespace
}  // namespace gguf::cli::cmd_edit
