// Fuzz target: the GGUF naming convention (schema layer: parse_name, size_label_for,
// suggest_name).
// Input: a file name; if it starts with "GGUF" it is also parsed as a file and its
// suggested name is computed and parsed back. Properties: a conforming name has its
// components and no problems; a non-conforming one says why; shard numbers are within
// 1..ShardTotal; size_label_for of any count is a label the parser reads back.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "fuzz_check.h"
#include "gguf/naming.h"

namespace {
void check(const gguf::name_check& c) {
  if (c.conforms) {
    FUZZ_CHECK(c.parts.has_value());
    FUZZ_CHECK(c.problems.empty());
    FUZZ_CHECK(!c.parts->base_name.empty());
    FUZZ_CHECK((c.parts->shard == 0) == (c.parts->shard_count == 0));
    FUZZ_CHECK(c.parts->sharded == (c.parts->shard_count != 0));
    FUZZ_CHECK(c.parts->shard <= c.parts->shard_count);
  } else {
    FUZZ_CHECK(!c.problems.empty());
  }
  for (const auto& p : c.problems) FUZZ_CHECK(!p.empty());
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  check(gguf::parse_name(text));

  if (size >= 12) {
    uint64_t count = 0;
    uint32_t experts = 0;
    std::memcpy(&count, data, 8);
    std::memcpy(&experts, data + 8, 4);
    auto label = gguf::size_label_for(count, experts % 1024);
    FUZZ_CHECK(!label.empty());
    auto c = gguf::parse_name("Model-" + label + "-v1.0-F16.gguf");
    check(c);
    FUZZ_CHECK(c.parts.has_value() && c.parts->size_label == label);
  }

  if (text.substr(0, 4) == "GGUF") {
    auto f = gguf::file::from_bytes(std::span(reinterpret_cast<const std::byte*>(data), size));
    if (f) {
      std::vector<std::string> problems;
      auto name = gguf::suggest_name(*f, &problems);
      FUZZ_CHECK(!name.empty());
      check(gguf::parse_name(name));
    }
  }
  return 0;
}
