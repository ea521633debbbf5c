// gguf embed -m FILE [TEXT | -f FILE] [--jsonl [--threads N]] [--no-add-special]: token embeddings of a text, i.e.
// tokenize as llama_tokenize (add_special on unless --no-add-special, parse_special off)
// and look the ids up in token_embd.weight (ggml_get_rows).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "commands.h"
#include "input.h"
#include "jsonl.h"
#include "gguf/model.h"
#include "gguf/vocab.h"

namespace gguf::cli::cmd_embed {
namespace {

/// Appends `x` so that it reads back to the same float32: the shortest round-trip
/// representation (std::to_chars on the float), with ".0" added to integral values so
/// that JSON readers take them as floats (otherwise "-0" reads back as the integer 0 and
/// loses its sign). NaN and infinities, which JSON cannot hold, are written as null.
void append_float(std::string& out, float x) {
  if (!std::isfinite(x)) {
    out += "null";
    return;
  }
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, r.ptr);
  if (std::find_if(buf, r.ptr, [](char c) { return c == '.' || c == 'e'; }) == r.ptr) out += ".0";
}

/// {"ids": [...], "embeddings": [[...], ...]} on one line.
void append_result(std::string& out, std::span<const int32_t> ids, std::span<const float> rows, size_t n_embd) {
  out += "{\"ids\": [";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(ids[i]);
  }
  out += "], \"embeddings\": [";
  for (size_t i = 0; i < ids.size(); ++i) {
    out += i ? ", [" : "[";
    for (size_t j = 0; j < n_embd; ++j) {
      if (j) out += ", ";
      append_float(out, rows[i * n_embd + j]);
    }
    out += "]";
  }
  out += "]}\n";
}

int run(int argc, char** argv) {
  CLI::App app{"Token embeddings of a text: tokenize (add_special on, parse_special off), then look the "
               "ids up in token_embd.weight. Output: {\"ids\": [...], \"embeddings\": [[n_embd floats], ...]}, "
               "each float printed so that it reads back to the same float32.",
               "embed"};
  text_options opts;
  add_text_options(app, opts, "GGUF model file",
                   "read standard input line by line: each line a JSON string or an object with a \"text\" field; "
                   "write one JSON object per line",
                   "embed");
  // (references, not a structured binding: lambdas below capture them, which clang before 16 refuses)
  std::string& path = opts.model;
  bool& jsonl = opts.jsonl;
  unsigned& threads = opts.threads;
  std::string text, file;
  bool no_add_special = false;
  auto* text_opt = app.add_option("TEXT", text, "text to embed (default: standard input)");
  app.add_option("-f,--file", file, "read the text (or with --jsonl, the lines) from FILE ('-': standard input)")
      ->excludes(text_opt);
  app.add_flag("--no-add-special", no_add_special, "do not add BOS/EOS as the model is configured to");
  if (auto rc = parse(app, argc, argv)) return *rc;
  bool have_text = app.count("TEXT") > 0;
  if (jsonl && have_text) {
    std::cerr << "gguf embed: TEXT and --jsonl exclude each other (see --help)\n";
    return exit_usage;
  }

  auto f = open_model(path);
  if (!f) return report(path, f.error());
  auto m = gguf::model::load(*f);
  if (!m) return report(path, m.error());
  auto te = m->token_embd();
  if (!te) return report(path, te.error());
  const size_t n_embd = (*te)->ne[0];
  auto v = load_vocab(*f);
  if (!v) return report(path, v.error());

  const bool add_special = !no_add_special;
  // Appends the result for `s` to `out`; `rows` is the caller's scratch.
  auto embed_one = [&](std::string_view s, std::vector<float>& rows, std::string& out) -> result<void> {
    auto ids = v->tokenize(s, add_special, /*parse_special=*/false);
    if (!ids) return ids.error();
    rows.resize(ids->size() * n_embd);
    if (auto r = m->get_token_embeddings(*ids, rows); !r) return r;
    append_result(out, *ids, rows, n_embd);
    return {};
  };

  if (!jsonl) {
    input_text in;
    if (!have_text) {
      auto r = input_text::read(file);
      if (!r) return report(input_source(file), r.error());
      in = std::move(*r);
    }
    std::vector<float> rows;
    std::string out;
    if (auto r = embed_one(have_text ? std::string_view(text) : in.view(), rows, out); !r)
      return report(path, r.error());
    write_standard_output(out.data(), out.size());  // (main's check_standard_output reports a failure)
    return exit_ok;
  }
  // one line per block: the output of one line at a time
  auto opened = jsonl_reader::open(file, size_t(64) << 10, 1);
  if (!opened) return report(input_source(file), opened.error());
  return run_jsonl_texts<std::vector<float>>(
      *opened, threads, [&](const std::string& t, std::vector<float>& rows, size_t, std::string& o, std::string& err) {
        if (auto r = embed_one(t, rows, o); !r) return report_to(path, r.error(), err);
        return exit_ok;
      });
}

const registrar reg{"embed", "token embeddings of a text (tokenize, then look up token_embd rows)", run};

}  // namespace
}  // namespace gguf::cli::cmd_embed
