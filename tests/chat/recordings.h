// The recorded chat-template suite (tests/chat/data): templates, conversations, and what the
// references rendered (scripts/record_chat_transformers.py, scripts/record-chat-llamacpp.sh).
#pragma once

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace gguf::test::chat {

using ojson = nlohmann::ordered_json;

inline std::filesystem::path data_path(const std::string& rel) {
  return std::filesystem::path(GGUF_SOURCE_DIR) / "tests/chat/data" / rel;
}

/// The lines of a gzip JSONL recording, parsed (ordered: dict order matters to templates).
inline std::vector<ojson> read_jsonl_gz(const std::string& name) {
  std::vector<ojson> out;
  gzFile f = gzopen(data_path(name).c_str(), "rb");
  if (!f) return out;
  std::string all;
  char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) all.append(buf, size_t(n));
  gzclose(f);
  std::istringstream in(all);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(ojson::parse(line));
  return out;
}

/// Conversation name -> the request object of conversations/NAME.json.
inline std::map<std::string, ojson> conversations() {
  std::map<std::string, ojson> out;
  for (const auto& e : std::filesystem::directory_iterator(data_path("conversations"))) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    out[e.path().stem().string()] = ojson::parse(in);
  }
  return out;
}

/// Cases known to differ from the reference, one "MODE TEMPLATE CONVERSATION" per line (# comments);
/// docs/chat.md gives each class its reason. A listed case that matches again fails the test,
/// so the list only shrinks.
inline std::set<std::string> known_mismatches(const std::string& mode) {
  std::set<std::string> out;
  std::ifstream in(data_path("known-mismatches.txt"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string m, t, c;
    ls >> m >> t >> c;
    if (m == mode) out.insert(t + " " + c);
  }
  return out;
}

}  // namespace gguf::test::chat

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <iostream>

namespace gguf::test::chat {

/// What we render for a case: the prompt, or the error (nullopt prompt).
struct rendered {
  bool ok = false;
  std::string text;  // prompt, or error message
};

/// Replays the records {"t", "c", "prompt"|"error"} of one mode with `render`: every case must
/// match byte for byte (both raising counts as a match) unless known-mismatches.txt lists it.
/// Prints "MODE: N of M match". With $GGUF_CHAT_MISMATCHES set, appends the current mismatches
/// to that file in known-mismatches.txt's format (for updating the list).
inline void replay(const std::string& mode, const std::vector<ojson>& records,
                   const std::function<std::optional<rendered>(const std::string& t, const ojson& conv)>& render) {
  auto convs = conversations();
  auto known = known_mismatches(mode);
  size_t total = 0, same = 0, skipped = 0;
  std::vector<std::string> now_mismatching;
  for (const auto& r : records) {
    if (!r.contains("c")) continue;
    const std::string t = r["t"], c = r["c"];
    auto got = render(t, convs.at(c));
    if (!got) {
      ++skipped;
      continue;
    }
    ++total;
    bool want_ok = r.contains("prompt");
    bool match = want_ok ? (got->ok && got->text == r["prompt"].get<std::string>()) : !got->ok;
    const std::string key = t + " " + c;
    if (match) {
      ++same;
      if (known.count(key)) ADD_FAILURE() << mode << ": " << key << " matches now: remove it from known-mismatches.txt";
      continue;
    }
    now_mismatching.push_back(key);
    if (known.count(key)) continue;
    std::string want = want_ok ? r["prompt"].get<std::string>() : "ERROR " + r["error"].get<std::string>();
    std::string have = got->ok ? got->text : "ERROR " + got->text;
    size_t i = 0;
    while (i < want.size() && i < have.size() && want[i] == have[i]) ++i;
    ADD_FAILURE() << mode << ": " << key << " differs at byte " << i << "\n  want: "
                  << ojson(want.substr(i > 40 ? i - 40 : 0, 160)).dump(-1, ' ', false, ojson::error_handler_t::replace) << "\n  have: "
                  << ojson(have.substr(i > 40 ? i - 40 : 0, 160)).dump(-1, ' ', false, ojson::error_handler_t::replace);
  }
  std::cout << mode << ": " << same << " of " << total << " match (" << known.size()
            << " known mismatches listed, " << skipped << " skipped)\n";
  if (const char* p = std::getenv("GGUF_CHAT_MISMATCHES")) {
    std::ofstream out(p, std::ios::app);
    for (const auto& k : now_mismatching) out << mode << " " << k << "\n";
  }
}

}  // namespace gguf::test::chat
