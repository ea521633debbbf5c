// gguf::untyped_leaves (gguf/writer.h): the one rule for the type of a metadata value
// given without one, used by `gguf edit --set-json` and Python's ggufkit.edit.
#include <cstdint>
#include <limits>

#include "gguf/writer.h"

namespace gguf {

void untyped_leaves::add_integer(int64_t v) noexcept {
  integers_ = true;
  if (v < 0) negative_ = true;
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) wide_ = true;
}

void untyped_leaves::add_integer(uint64_t v) noexcept {
  integers_ = true;
  if (v > uint64_t(std::numeric_limits<int32_t>::max())) wide_ = true;
  if (v > uint64_t(std::numeric_limits<int64_t>::max())) above_int64_ = true;
}

result<value_type> untyped_leaves::element_type() const {
  auto bad = [](const char* why) { return make_error(errc::invalid_argument, no_offset, why); };
  const bool numbers = floats_ || integers_;
  if (int(strings_) + int(bools_) + int(numbers) > 1) return bad("mixes strings, bools and numbers");
  if (strings_) return value_type::string;
  if (bools_) return value_type::boolean;
  if (floats_) return value_type::float32;
  if (!integers_) return bad("an empty array has no element type");
  if (!wide_) return value_type::int32;
  if (!above_int64_) return value_type::int64;
  if (!negative_) return value_type::uint64;
  return bad("integers below 0 and above INT64_MAX fit no one GGUF type");
}

}  // namespace gguf
