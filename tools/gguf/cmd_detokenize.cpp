// gguf detokenize -m FILE [IDS... | -f FILE] [--jsonl [--threads N]] [--remove-special] [--unparse-special]
// Text of token ids exactly as llama.cpp's llama_detokenize gives it.
#include <charconv>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "input.h"
#include "jsonl.h"
#include "gguf/vocab.h"

namespace gguf::cli::cmd_detokenize {
namespace {

// Ids from free text: integers separated by white space, commas or brackets (one pass
// with from_chars: a file of ids is read at memory speed).
bool parse_ids(std::string_view s, std::vector<int64_t>& out) {
  const auto separator = [](char c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == ',' || c == '[' ||
           c == ']';
  };
  const char* p = s.data();
  const char* const end = p + s.size();
  while (p < end) {
    if (separator(*p)) {
      ++p;
      continue;
    }
    const char* q = p;
    while (q < end && !separator(*q)) ++q;
    const char* first = p < q && *p == '+' && q - p > 1 && p[1] != '-' ? p + 1 : p;  // stoll took a '+'
    int64_t v = 0;
    const auto r = std::from_chars(first, q, v);
    if (r.ec != std::errc() || r.ptr != q) return false;
    out.push_back(v);
    p = q;
  }
  return true;
}

int run(int argc, char** argv) {
  CLI::App app{"Turn token ids back into text with the tokenizer embedded in a GGUF file.", "detokenize"};
  text_options opts;
  add_text_options(app, opts, "GGUF file with tokenizer.ggml.* keys",
                   "each input line is a JSON array of ids; prints one JSON string per line", "detokenize");
  // (references, not a structured binding: lambdas below capture them, which clang before 16 refuses)
  std::string& model = opts.model;
  bool& jsonl = opts.jsonl;
  unsigned& threads = opts.threads;
  std::string file;
  std::vector<std::string> args;
  bool remove_special = false, unparse_special = false;
  auto* ids_opt = app.add_option("IDS", args, "token ids (default: read from standard input)");
  app.add_option("-f,--file", file, "read the ids (or with --jsonl, the lines) from FILE ('-': standard input)")
      ->excludes(ids_opt);
  app.add_flag("--remove-special", remove_special, "drop a leading BOS / trailing EOS the model adds");
  app.add_flag("--unparse-special", unparse_special, "render control tokens as their text");
  if (auto rc = parse(app, argc, argv)) return *rc;

  auto f = open_model(model);
  if (!f) return report(model, f.error());
  auto v = load_vocab(*f);
  if (!v) return report(model, v.error());
  if (v->type() == vocab_type::none) {
    std::cerr << "gguf: " << model << ": this file has no tokenizer (key tokenizer.ggml.model)\n";
    return exit_invalid;
  }
  // Ids in range, else the error (a whole stderr line) in err.
  const auto to_ids = [&](const std::vector<int64_t>& raw, std::vector<int32_t>& ids, std::string& err) -> bool {
    ids.clear();
    for (int64_t x : raw) {
      if (x < 0 || x >= int64_t(v->n_tokens())) {
        err = "gguf: " + model + ": token id " + std::to_string(x) + " out of range (n_tokens " +
              std::to_string(v->n_tokens()) + ")\n";
        return false;
      }
      ids.push_back(int32_t(x));
    }
    return true;
  };
  if (!jsonl) {
    std::vector<int64_t> raw;
    std::vector<int32_t> ids;
    std::string all;
    input_text in;
    if (args.empty()) {
      auto r = input_text::read(file);
      if (!r) return report(input_source(file), r.error());
      in = std::move(*r);
    } else {
      for (auto& a : args) all += a + " ";
    }
    if (!parse_ids(args.empty() ? in.view() : std::string_view(all), raw)) {
      std::cerr << "gguf detokenize: IDS must be integers (see --help)\n";
      return exit_usage;
    }
    std::string err;
    if (!to_ids(raw, ids, err)) {
      std::cerr << err;
      return exit_invalid;
    }
    std::string text = v->detokenize(ids, remove_special, unparse_special);
    text += '\n';
    write_standard_output(text.data(), text.size());  // (main's check_standard_output reports a failure)
    return exit_ok;
  }
  auto opened = jsonl_reader::open(file);
  if (!opened) return report(input_source(file), opened.error());
  jsonl_reader& in = *opened;
  threads = jsonl_threads(threads);
  struct alignas(64) scratch {  // a cache line each: threads write their own only
    std::vector<int64_t> raw;
    std::vector<int32_t> ids;
  };
  std::vector<scratch> per_thread(threads);
  return run_jsonl(in, threads, [&](unsigned k, std::span<const jsonl_line> lines, std::string& out, std::string& err) {
    auto& [raw, ids] = per_thread[k];
    for (const jsonl_line& line : lines) {
      // a blank line is the empty list of ids (one output line per input line)
      auto j = jsonl_blank(line.text) ? nlohmann::json::array() : nlohmann::json::parse(line.text, nullptr, false);
      raw.clear();
      bool ok = j.is_array();
      if (ok)
        for (auto& e : j) {
          if (!e.is_number_integer()) {
            ok = false;
            break;
          }
          raw.push_back(e.get<int64_t>());
        }
      if (!ok) return jsonl_error(in, line.line_no, "a JSON array of integers", err);
      if (!to_ids(raw, ids, err)) {
        err = "gguf: " + std::string(in.source()) + ": line " + std::to_string(line.line_no) + ": " +
              err.substr(err.find(": token id ") + 2);  // the input line, then the model's range
        return exit_invalid;
      }
      out += nlohmann::json(v->detokenize(ids, remove_special, unparse_special))
                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      out += '\n';
    }
    return exit_ok;
  });
}

const registrar reg{"detokenize", "text of token ids, as llama.cpp's llama_detokenize", run};

}  // namespace
}  // namespace gguf::cli::cmd_detokenize
