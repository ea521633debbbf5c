// Python str operations over UTF-8 (internal): case mapping, strip, split, splitlines.
//
// Case mapping is Unicode's simple one (llama.cpp's lowercase table and its inverse),
// so Python's few one-to-many mappings ('ß'.upper() == 'SS') are not reproduced.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf::jinja::text {

std::vector<uint32_t> cpts(std::string_view s);
/// The byte offset in `s` where each of cpts(s)'s code points starts, then s.size()
/// (size cpts(s).size() + 1). Offsets into `s` itself: a malformed byte decoded as U+FFFD
/// is still one byte here (re-encoding the code points would make it three).
std::vector<size_t> cpt_offsets(std::string_view s);
std::string utf8(const std::vector<uint32_t>& c);
/// A run of ASCII digits (format widths, indices in a format field or an attribute path)
/// as a number; nullopt when empty, not all digits, or past INT64_MAX (Python's int would
/// grow; the callers say "too large" or "out of range").
std::optional<int64_t> parse_digits(std::string_view digits) noexcept;
/// The first occurrence of `needle` in `hay` at or after byte `pos`, else npos (as
/// std::string_view::find). Linear in hay and needle (glibc's memmem, two-way), where
/// string_view::find is quadratic: a long needle of a template must not make `in`,
/// find, count, replace or split run for minutes under the step limit.
size_t find(std::string_view hay, std::string_view needle, size_t pos = 0);
/// The last occurrence of `needle` starting at or before byte `pos`, else npos (as
/// std::string_view::rfind), linear in the part searched.
size_t rfind(std::string_view hay, std::string_view needle, size_t pos = std::string_view::npos);
uint32_t upper(uint32_t c);
uint32_t lower(uint32_t c);
bool is_cased_upper(uint32_t c);
bool is_cased_lower(uint32_t c);
bool is_alpha(uint32_t c);
bool is_digit(uint32_t c);
bool is_space(uint32_t c);

std::string to_upper(std::string_view s);
std::string to_lower(std::string_view s);
/// str.title(): a cased letter after an uncased character starts a word.
std::string to_title(std::string_view s);
/// str.capitalize(): first character upper, the rest lower.
std::string capitalize(std::string_view s);
/// str.strip/lstrip/rstrip(chars); chars nullopt = whitespace.
std::string strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right);
/// str.split(sep, maxsplit) / str.rsplit; sep nullopt = runs of whitespace.
std::vector<std::string> split(std::string_view s, const std::optional<std::string>& sep, int64_t maxsplit,
                               bool from_right = false);
/// str.splitlines(keepends).
std::vector<std::string> splitlines(std::string_view s, bool keepends);

}  // namespace gguf::jinja::text
