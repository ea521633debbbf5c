// gguf tokenize -m FILE [TEXT] [--jsonl [--threads N]] [--no-add-special] [--no-parse-special] [--pieces] [--count]
// Token ids of TEXT (or standard input) exactly as llama.cpp's llama_tokenize gives them.
// --jsonl streams: one block of lines at a time (cli_common's loop), tokenized by
// vocab::tokenize_batch on N threads, written in input order.
#include <iostream>
#include <iterator>

#include "commands.h"
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
  out_buffer out;
  std::vector<std::string> texts;
  std::vector<std::string_view> views;
  return for_each_jsonl_block(in, [&](std::span<const jsonl_line> lines) {
    if (texts.size() < lines.size()) texts.resize(lines.size());
    views.clear();
    size_t bad = lines.size();  // the lines before a bad one are still written
    for (size_t i = 0; i < lines.size() && bad == lines.size(); ++i) {
      if (jsonl_text(lines[i].text, texts[i])) views.push_back(texts[i]);
      else bad = i;
    }
    auto r = v->tokenize_batch(views, threads, !no_add, !no_parse);
    if (!r) return report(model, r.error());
    std::string& o = out.str();
    for (const auto& ids : *r) {
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
    if (bad < lines.size()) {
      out.flush();
      return jsonl_error(in, lines[bad].line_no, "a JSON string or an object with a \"text\" string");
    }
    out.maybe_flush();
    return exit_ok;
  });
}

const registrar reg{"tokenize", "token ids of a text, as llama.cpp's llama_tokenize", run};

}  // namespace
}  // namespace gguf::cli
