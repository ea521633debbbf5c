// gguf tokenize -m FILE [TEXT | -f FILE] [--jsonl [--threads N]] [--no-add-special] [--no-parse-special] [--pieces] [--count]
// Token ids of TEXT (or of FILE, or standard input: read as input.h reads) exactly as llama.cpp's llama_tokenize gives them.
// --jsonl streams through the shared loop (jsonl.h): each block of lines is decoded,
// tokenized and formatted on one of N threads, and written in input order.
#include <cerrno>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "input.h"
#include "jsonl.h"
#include "gguf/remote.h"
#include "gguf/vocab.h"

namespace gguf::cli::cmd_tokenize {
namespace {

nlohmann::ordered_json pieces_json(const vocab& v, const std::vector<int32_t>& ids) {
  auto a = nlohmann::ordered_json::array();
  for (int32_t id : ids) a.push_back(v.token_to_piece(id, true));
  return a;
}

std::string dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

int run(int argc, char** argv) {
  CLI::App app{"Tokenize text with the tokenizer embedded in a GGUF file (llama.cpp-identical ids).", "tokenize"};
  text_options opts;
  add_text_options(app, opts, "GGUF file with tokenizer.ggml.* keys",
                   "each input line is a JSON string or an object with \"text\"; prints one JSON array per line",
                   "tokenize");
  // (references, not a structured binding: lambdas below capture them, which clang before 16 refuses)
  std::string& model = opts.model;
  bool& jsonl = opts.jsonl;
  unsigned& threads = opts.threads;
  std::string text, file;
  bool no_add = false, no_parse = false, pieces = false, count = false;
  auto* text_opt = app.add_option("TEXT", text, "text to tokenize (default: standard input)");
  app.add_option("-f,--file", file, "read the text (or with --jsonl, the lines) from FILE ('-': standard input)")
      ->excludes(text_opt);
  app.add_flag("--no-add-special", no_add, "do not add BOS/EOS/SEP");
  app.add_flag("--no-parse-special", no_parse, "treat special-token text as plain text");
  auto* pieces_flag = app.add_flag("--pieces", pieces, "also print each token's text");
  app.add_flag("--count", count, "print only the number of tokens")->excludes(pieces_flag);
  if (auto rc = parse(app, argc, argv)) return *rc;
  const bool from_stdin = app.count("TEXT") == 0;  // standard input or FILE

  auto f = open_model(model);
  if (!f) return report(model, f.error());
  auto v = load_vocab(*f);
  if (!v) return report(model, v.error());

  if (!jsonl) {
    input_text in;
    if (from_stdin) {
      auto r = input_text::read(file);
      if (!r) return report(input_source(file), r.error());
      in = std::move(*r);
    }
    auto r = v->tokenize(from_stdin ? in.view() : std::string_view(text), !no_add, !no_parse);
    if (!r) return report(model, r.error());
    if (count) {
      std::cout << r->size() << '\n';
    } else if (pieces) {
      nlohmann::ordered_json j;
      j["ids"] = *r;
      j["pieces"] = pieces_json(*v, *r);
      std::cout << dump(j) << '\n';
    } else {
      if (!write_ids_json(stdout, *r)) note_standard_output_error(errno);  // (end_process reports it)
    }
    return is_remote(model) ? exit_ok : end_process(exit_ok);  // (a URL's client closes its connection)
  }

  auto opened = from_stdin ? jsonl_reader::open(file) : result<jsonl_reader>(jsonl_reader(text));
  if (!opened) return report(input_source(file), opened.error());
  jsonl_reader& in = *opened;
  // One block on one thread: each line's text tokenized and formatted.
  const int rc = run_jsonl_texts<std::vector<int32_t>>(
      in, threads, [&](const std::string& t, std::vector<int32_t>& ids, size_t line_no, std::string& o, std::string& err) {
        ids.clear();
        if (auto r = v->tokenize_into(t, ids, !no_add, !no_parse); !r) {
          gguf::error e = r.error();
          e.detail = std::string(in.source()) + " line " + std::to_string(line_no) + ": " +
                     (e.detail.empty() ? std::string(error_message(e.code)) : e.detail);
          return report_to(model, e, err);
        }
        if (count) {
          o += std::to_string(ids.size());
        } else if (pieces) {
          nlohmann::ordered_json j;
          j["ids"] = ids;
          j["pieces"] = pieces_json(*v, ids);
          o += dump(j);
        } else {
          append_ids_json(o, ids);
        }
        o += '\n';
        return exit_ok;
      });
  return is_remote(model) ? rc : end_process(rc);  // (its threads are joined)
}

const registrar reg{"tokenize", "token ids of a text, as llama.cpp's llama_tokenize", run};

}  // namespace
}  // namespace gguf::cli::cmd_tokenize
