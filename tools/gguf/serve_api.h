// `gguf serve`'s JSON API (/api/...), apart from the HTTP server: a request is a path and
// its query parameters, the answer a status and a JSON body. docs/serve.md documents it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "gguf/chat.h"

namespace gguf::cli {

/// Bounds of the work one request may ask for (safe by default: docs/serve.md).
struct serve_limits {
  size_t max_tokenize_bytes = 16 * 1024;   ///< text of one /api/tokenize request, messages of /api/chat
  size_t max_value_bytes = 8u << 20;       ///< one string of /api/value
  uint64_t max_array_slice = 10000;        ///< elements of one /api/value array slice
  uint32_t max_ctx = 1u << 24;             ///< n_ctx of /api/estimate
  uint32_t max_parallel = 256;             ///< sequences of /api/estimate
};

/// One file given on the command line, opened once (a shard set as one model).
struct served_file {
  served_file(std::string n, gguf::file file, split_facts s) : name(std::move(n)), f(std::move(file)), split(s) {}
  std::string name;  ///< as given (path or URL)
  gguf::file f;
  split_facts split;
  std::once_flag vocab_once;
  std::optional<result<gguf::vocab>> vocab;  ///< loaded on the first tokenizer request
  std::once_flag chat_once;
  std::optional<result<gguf::chat_template>> chat;  ///< loaded on the first chat request
};

struct api_answer {
  int status = 200;
  std::string body;  ///< JSON
};

class serve_api {
 public:
  serve_api(std::vector<std::unique_ptr<served_file>> files, bool diff, serve_limits limits = {});

  /// Answers GET `path` (starting with "/api/") with query `params`. Unknown paths: 404;
  /// bad parameters: 400; requests over a limit: 413; every body is JSON ({"error": ...}
  /// on failure).
  api_answer get(const std::string& path, const std::multimap<std::string, std::string>& params);

 private:
  /// The file's vocabulary, loaded once (one load at a time).
  const result<gguf::vocab>& vocab_of(served_file& sf);
  /// The checks before tokenizing a request's `input` (the parameter `name`): given (else 400
  /// "NAME is required" + `note`), at most max_tokenize_bytes (else 413, "NAME of N bytes
  /// VERB above the limit of M"), a vocabulary in the file (else 422). The refusal, or
  /// nothing when the request may go on.
  std::optional<api_answer> refuse_input(served_file& sf, const std::optional<std::string>& input,
                                         const std::string& name, const char* note, const char* verb);
  std::vector<std::unique_ptr<served_file>> files_;
  bool diff_;
  serve_limits limits_;
  std::mutex heavy_;  // one tokenizer load / validation / diff at a time
  std::mutex cache_mutex_;
  std::map<std::string, std::string> cache_;  // bodies of the answers that never change
};

}  // namespace gguf::cli
