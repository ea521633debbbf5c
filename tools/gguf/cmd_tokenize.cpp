// gguf tokenize -m FILE [TEXT] [--jsonl] [--no-add-special] [--no-parse-special] [--pieces] [--count]
// Token ids of TEXT (or standard input) exactly as llama.cpp's llama_tokenize gives them.
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
  app.add_option("-m,--model", model, "GGUF file with tokenizer.ggml.* keys")->required();
  app.add_option("TEXT", text, "text to tokenize (default: standard input)");
  app.add_flag("--jsonl", jsonl, "each input line is a JSON string or an object with \"text\"; prints one JSON array per line");
  app.add_flag("--no-add-special", no_add, "do not add BOS/EOS/SEP");
  app.add_flag("--no-parse-special", no_parse, "treat special-token text as plain text");
  app.add_flag("--pieces", pieces, "also print each token's text");
  app.add_flag("--count", count, "print only the number of tokens");
  if (auto rc = parse(app, argc, argv)) return *rc;
  const bool from_stdin = app.count("TEXT") == 0;

  auto f = open_model(model);
  if (!f) return report(model, f.error());
  auto v = vocab::load(*f);
  if (!v) return report(model, v.error());

  const auto emit = [&](const std::vector<int32_t>& ids) {
    if (count) {
      std::cout << ids.size() << '\n';
    } else if (pieces) {
      nlohmann::ordered_json j;
      j["ids"] = ids;
      j["pieces"] = pieces_json(*v, ids);
      std::cout << dump(j) << '\n';
    } else {
      std::cout << dump(nlohmann::ordered_json(ids)) << '\n';
    }
  };
  const auto tok = [&](std::string_view t, std::vector<int32_t>& ids) -> int {
    auto r = v->tokenize(t, !no_add, !no_parse);
    if (!r) return report(model, r.error());
    ids = std::move(*r);
    return exit_ok;
  };

  std::vector<int32_t> ids;
  if (!jsonl) {
    if (from_stdin) text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    if (int rc = tok(text, ids)) return rc;
    emit(ids);
    return exit_ok;
  }
  std::string line;
  size_t line_no = 0;
  std::istringstream arg_lines(text);
  std::istream& in = from_stdin ? std::cin : static_cast<std::istream&>(arg_lines);
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    std::string t;
    if (j.is_string()) {
      t = j.get<std::string>();
    } else if (j.is_object() && j.contains("text") && j["text"].is_string()) {
      t = j["text"].get<std::string>();
    } else {
      std::cerr << "gguf: <stdin>: line " << line_no << ": expected a JSON string or an object with a \"text\" string\n";
      return exit_invalid;
    }
    if (int rc = tok(t, ids)) return rc;
    emit(ids);
  }
  return exit_ok;
}

const registrar reg{"tokenize", "token ids of a text, as llama.cpp's llama_tokenize", run};

}  // namespace
}  // namespace gguf::cli
