// Unicode helpers with llama.cpp's semantics (see unicode.h).
#include "vocab/unicode/unicode.h"

#include "vocab/runtime/prefault.h"

#include <algorithm>
#include <array>
#include <memory>


namespace gguf::vocab_detail {
namespace {

// The flags of code points [0, n) (n <= flags_table_size) into t, zero on entry. The
// whitespace, case and NFD lists hold no code point past flags_table_size
// (test_generated_tables.cpp checks it): past it, the ranges alone give the flags.
void fill_flags(uint16_t* t, uint32_t n) noexcept {
  namespace ud = unicode_data;
  for (size_t i = 0; i + 1 < ud::ranges_flags_count && ud::ranges_flags[i].start < n; ++i) {
    const uint32_t end = std::min(ud::ranges_flags[i + 1].start, n);
    for (uint32_t c = ud::ranges_flags[i].start; c < end; ++c) t[c] = ud::ranges_flags[i].flags;
  }
  const auto set = [&](uint32_t c, uint16_t bit) {
    if (c < n) t[c] |= bit;
  };
  for (size_t i = 0; i < ud::whitespace_count; ++i) set(ud::whitespace[i], cpt_flags::whitespace);
  for (size_t i = 0; i < ud::map_lowercase_count; ++i) set(ud::map_lowercase[i].to, cpt_flags::lowercase);
  for (size_t i = 0; i < ud::map_uppercase_count; ++i) set(ud::map_uppercase[i].to, cpt_flags::uppercase);
  for (size_t i = 0; i < ud::ranges_nfd_count; ++i) set(ud::ranges_nfd[i].nfd, cpt_flags::nfd);
}

// Built at the first use in a process that needs more than ASCII (a tokenize call or a
// load that meets a code point past U+007F): flags_table_size entries, its pages faulted
// in by one call and written once (prefault.h).
table_vector<uint16_t> build_flags() {
  auto t = prefaulted_table<uint16_t>(flags_table_size, 0);
  fill_flags(t.data(), flags_table_size);
  return t;
}

// The flags of a code point past the table: its category range's.
uint16_t range_flags_of(uint32_t cpt) noexcept {
  namespace ud = unicode_data;
  const auto* b = ud::ranges_flags;
  const auto* e = b + ud::ranges_flags_count;
  const auto* it = std::upper_bound(b, e, cpt, [](uint32_t v, const ud::range_flags& r) { return v < r.start; });
  return it == b ? 0 : (it - 1)->flags;
}

struct byte_alphabet {
  std::array<byte_alphabet_utf8, 256> utf8{};
  std::array<int16_t, 324> cpt_to_byte{};  // code points 0..323 cover the whole alphabet
};

constexpr byte_alphabet make_byte_alphabet() noexcept {
  byte_alphabet a{};
  for (auto& x : a.cpt_to_byte) x = -1;
  for (int b = 0; b < 256; ++b) {
    a.utf8[size_t(b)] = byte_alphabet_char(uint8_t(b));
    a.cpt_to_byte[byte_alphabet_cpt(uint8_t(b))] = int16_t(b);
  }
  return a;
}

// compiled in: no initializer runs at the start of every command
constexpr byte_alphabet alphabet_table = make_byte_alphabet();
static_assert(alphabet_table.cpt_to_byte[323] == 0xAD && alphabet_table.cpt_to_byte[256] == 0 &&
              alphabet_table.cpt_to_byte[0x21] == 0x21 && alphabet_table.cpt_to_byte[0xAD] == -1);

const byte_alphabet& alphabet() { return alphabet_table; }

}  // namespace

const uint16_t* flags_table() noexcept {
  static const table_vector<uint16_t> table = build_flags();
  return table.data();
}

const uint16_t* ascii_flags_table() noexcept {
  static const std::array<uint16_t, 0x80> table = [] {
    std::array<uint16_t, 0x80> t{};
    fill_flags(t.data(), 0x80);
    return t;
  }();
  return table.data();
}

const uint16_t* flags_table_for(std::span<const uint32_t> cpts) noexcept {
  uint32_t any = 0;
  for (uint32_t c : cpts) any |= c;
  return any < 0x80 ? ascii_flags_table() : flags_table();
}

cpt_flags flags_of(uint32_t cpt) noexcept {
  if (cpt < flags_table_size) return cpt_flags{flags_table()[cpt]};
  return cpt < max_codepoints ? cpt_flags{range_flags_of(cpt)} : cpt_flags{};
}

void utf8_to_cpts(std::string_view s, std::vector<uint32_t>& out) {
  out.clear();
  out.reserve(s.size());
  for (size_t off = 0; off < s.size();) {
    uint32_t c;
    off += utf8_decode_lenient(s, off, c);
    out.push_back(c);
  }
}

uint32_t to_lower(uint32_t cpt) noexcept {
  namespace ud = unicode_data;
  const auto* b = ud::map_lowercase;
  const auto* e = b + ud::map_lowercase_count;
  const auto* it = std::lower_bound(b, e, cpt, [](const ud::cpt_pair& p, uint32_t v) { return p.from < v; });
  return (it != e && it->from == cpt) ? it->to : cpt;
}

uint32_t to_nfd(uint32_t cpt) noexcept {
  namespace ud = unicode_data;
  const auto* b = ud::ranges_nfd;
  const auto* e = b + ud::ranges_nfd_count;
  const auto* it = std::upper_bound(b, e, cpt, [](uint32_t v, const ud::range_nfd& r) { return v < r.first; });
  if (it == b) return cpt;
  --it;
  return (it->first <= cpt && cpt <= it->last) ? it->nfd : cpt;
}

bool is_han(uint32_t c) noexcept {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0x2CEB0 && c <= 0x2EBEF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

std::string_view byte_to_utf8(uint8_t byte) noexcept {
  const auto& u = alphabet().utf8[byte];
  return {u.bytes, u.len};
}

bool utf8_cpt_to_byte(uint32_t cpt, uint8_t& byte) noexcept {
  const auto& a = alphabet();
  if (cpt >= a.cpt_to_byte.size() || a.cpt_to_byte[cpt] < 0) return false;
  byte = uint8_t(a.cpt_to_byte[cpt]);
  return true;
}

}  // namespace gguf::vocab_detail
