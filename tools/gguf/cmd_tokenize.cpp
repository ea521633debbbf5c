// gguf tokenize -m FILE [TEXT] [--jsonl [--threads N]] [--no-add-special] [--no-parse-special] [--pieces] [--count]
// Token ids of TEXT (or standard input) exactly as llama.cpp's llama_tokenize gives them.
// --jsonl streams through the shared loop (jsonl.h): each block of lines is decoded,
// tokenized and formatted on one of N threads, and written in input order.
#include <algorithm>
#include <iostream>
#include <iterator>

#include "commands.h"
#include "jsonl.h"
#include "gguf/vocab.h"

namespace gguf::cli {
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
  std::string model, text;
  bool jsonl = false, no_add = false, no_parse = false, pieces = false, count = false;
  unsigned threads = 1;
  app.add_option("-m,--model", model, "GGUF file with tokenizer.ggml.* keys")->required();
  app.add_option("TEXT", text, "text to tokenize (default: standard input)");
  app.add_flag("--jsonl", jsonl, "each input line is a JSON string or an object with \"text\"; prints one JSON array per line");
  app.add_option("--threads", threads, "with --jsonl: tokenize on N threads, output order kept (0 = every core; default 1)");
  app.add_flag("--no-add-special", no_add, "do not add BOS/EOS/SEP");
  app.add_flag("--no-parse-special", no_parse, "treat special-token text as plain text");
  app.add_flag("--pieces", pieces, "also print each token's text");
  app.add_flag("--count", count, "print only the number of tokens");
  add_remote_options(app);
  add_vocab_cache_options(app);
  if (auto rc = parse(app, argc, argv)) return *rc;
  const bool from_stdin = app.count("TEXT") == 0;

  auto f = open_model(model);
  if (!f) return report(model, f.error());
  auto v = load_vocab(*f);
  if (!v) return report(model, v.error());

  if (!jsonl) {
    if (from_stdin) text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    auto r = v->tokenize(text, !no_add, !no_parse);
    if (!r) return report(model, r.error());
    if (count) {
      std::cout << r->size() << '\n';
    } else if (pieces) {
      nlohmann::ordered_json j;
      j["ids"] = *r;
      j["pieces"] = pieces_json(*v, *r);
      std::cout << dump(j) << '\n';
    } else {
      std::cout << dump(nlohmann::ordered_json(*r)) << '\n';
    }
    return exit_ok;
  }

  jsonl_reader in = from_stdin ? jsonl_reader(0) : jsonl_reader(text);
  threads = jsonl_threads(threads);
  struct alignas(64) scratch {  // a cache line each: threads write their own only
    std::string text;
    std::vector<int32_t> ids;
  };
  std::vector<scratch> per_thread(threads);
  // One block on one thread: decode each line, tokenize, format.
  return run_jsonl(in, threads, [&](unsigned k, std::span<const jsonl_line> lines, std::string& o, std::string& err) {
    auto& [t, ids] = per_thread[k];
    for (const jsonl_line& line : lines) {
      if (!jsonl_text(line.text, t))
        return jsonl_error(in, line.line_no, "a JSON string or an object with a \"text\" string", err);
      ids.clear();
      if (!v->tokenize_into(t, ids, !no_add, !no_parse)) {
        auto r = v->tokenize(t, !no_add, !no_parse);
        gguf::error e = r ? make_error(errc::invalid_argument, no_offset, "tokenization failed") : r.error();
        e.detail = std::string(in.source()) + " line " + std::to_string(line.line_no) + ": " +
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
    }
    return exit_ok;
  });
}

const registrar reg{"tokenize", "token ids of a text, as llama.cpp's llama_tokenize", run};

}  // namespace
}  // namespace gguf::cli
