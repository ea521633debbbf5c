// Hand-written splitters; see split_fast.h. Positions are code point indices; outside
// the current piece a code point reads as `none` and its flags as empty.
#include "vocab/pre_tokenizer/split_fast.h"

#include "vocab/unicode/unicode.h"

namespace gguf::vocab_detail {
namespace {

constexpr uint32_t none = 0xFFFFFFFF;

struct piece_view {
  const uint32_t* cpts;
  size_t ini, end, prev_end;
  std::vector<size_t>& out;
  const uint16_t* ft;  // flags_table_for(the code points)

  uint32_t cpt(size_t p) const { return (p >= ini && p < end) ? cpts[p] : none; }
  cpt_flags flags(size_t p) const {
    if (p < ini || p >= end) return {};
    const uint32_t c = cpts[p];
    return c < flags_table_size ? cpt_flags{ft[c]} : flags_of(c);
  }
  size_t add(size_t e) {
    const size_t len = e - prev_end;
    if (len > 0) out.push_back(len);
    prev_end = e;
    return len;
  }
  bool is_rn(uint32_t c) const { return c == '\r' || c == '\n'; }

  // (?i:'s|'t|'re|'ve|'m|'ll|'d) at pos; returns the match length or 0.
  size_t contraction(size_t pos, bool icase) const {
    if (cpt(pos) != '\'' || pos + 1 >= end) return 0;
    const auto low = [&](uint32_t c) { return icase ? to_lower(c) : c; };
    const uint32_t a = low(cpt(pos + 1));
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (pos + 2 >= end) return 0;
    const uint32_t b = low(cpt(pos + 2));
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    return 0;
  }

  // The whitespace tail shared by llama3/qwen2/kimi: \s*[\r\n]+ | \s+(?!\S) | \s+ | any.
  void whitespace_tail(size_t& pos, bool with_rn) {
    size_t n = 0, last_rn = 0;
    while (flags(pos + n).is_whitespace()) {
      if (with_rn && is_rn(cpt(pos + n))) last_rn = pos + n + 1;
      ++n;
    }
    if (last_rn > 0) {
      pos = last_rn;
    } else if (n > 1 && cpt(pos + n) != none) {
      pos += n - 1;
    } else if (n > 0) {
      pos += n;
    } else {
      ++pos;
    }
    add(pos);
  }

  // \p{N}{1,3}, repeated: a run of digits as pieces of three (llama3, qwen2, ...).
  void digit_runs_of_three(size_t& pos) {
    size_t ini = pos;
    while (flags(pos).is_number()) {
      if (++pos - ini >= 3) {
        add(pos);
        ini = pos;
      }
    }
    add(pos);
  }

  // ?[^\s\p{L}\p{N}]+ (then [\r\n]* if `rn`); `gate` is the flags that must be non-empty.
  bool other_run(size_t& pos, uint32_t c, cpt_flags f, bool gate_on_f2, bool rn) {
    cpt_flags f2 = (c == ' ') ? flags(pos + 1) : f;
    const auto other = [](cpt_flags x) { return !(x.is_whitespace() || x.is_letter() || x.is_number()); };
    if (!(other(f2) && (gate_on_f2 ? f2.bits : f.bits))) return false;
    pos += (c == ' ');
    while (other(f2) && f2.bits) f2 = flags(++pos);
    if (rn)
      while (is_rn(cpt(pos))) ++pos;
    add(pos);
    return true;
  }
};

template <class Body>
void for_each_piece(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out, Body body) {
  size_t start = 0;
  const uint16_t* ft = flags_table_for(cpts);
  for (size_t len : in) {
    piece_view v{cpts.data(), start, start + len, start, out, ft};
    body(v);
    start += len;
  }
}

/// The scan of gpt2 and the llama3-like splitters: at each position a contraction first
/// ('s 't 're 've 'm 'll 'd; `icase`: (?i:...)), else `step(v, pos, c, f)`, which
/// advances `pos` past the piece it adds.
template <class Step>
void scan_after_contractions(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out,
                             bool icase, Step step) {
  for_each_piece(cpts, in, out, [&](piece_view& v) {
    for (size_t pos = v.ini; pos < v.end;) {
      if (size_t n = v.contraction(pos, icase)) {
        pos += v.add(pos + n);
        continue;
      }
      step(v, pos, v.cpt(pos), v.flags(pos));
    }
  });
}

// llama3 and qwen2 differ only in the number rule.
void split_llama3_like(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out,
                       bool digits_by_three) {
  scan_after_contractions(cpts, in, out, true, [&](piece_view& v, size_t& pos, const uint32_t c, const cpt_flags f) {
    if (!(v.is_rn(c) || f.is_number()) && (f.is_letter() || v.flags(pos + 1).is_letter())) {
      ++pos;
      while (v.flags(pos).is_letter()) ++pos;
      v.add(pos);
      return;
    }
    if (f.is_number()) {
      if (digits_by_three) {
        v.digit_runs_of_three(pos);
      } else {
        v.add(++pos);
      }
      return;
    }
    if (v.other_run(pos, c, f, false, true)) return;
    v.whitespace_tail(pos, true);
  });
}

}  // namespace

void split_gpt2(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out) {
  scan_after_contractions(cpts, in, out, false, [&](piece_view& v, size_t& pos, const uint32_t c, const cpt_flags f) {
    cpt_flags f2 = (c == ' ') ? v.flags(pos + 1) : f;
    if (f2.is_letter() || f2.is_number()) {
      const bool letter = f2.is_letter();
      pos += (c == ' ');
      while (letter ? f2.is_letter() : f2.is_number()) f2 = v.flags(++pos);
      v.add(pos);
      return;
    }
    if (v.other_run(pos, c, f, true, false)) return;
    v.whitespace_tail(pos, false);
  });
}

void split_llama3(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out) {
  split_llama3_like(cpts, in, out, true);
}

void split_qwen2(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out) {
  split_llama3_like(cpts, in, out, false);
}

void split_kimi_k2(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out) {
  for_each_piece(cpts, in, out, [&](piece_view& v) {
    const auto letter_not_han = [&](size_t p) { return v.flags(p).is_letter() && !is_han(v.cpt(p)); };
    for (size_t pos = v.ini; pos < v.end;) {
      const uint32_t c = v.cpt(pos);
      const cpt_flags f = v.flags(pos);
      if (is_han(c)) {
        while (is_han(v.cpt(pos))) ++pos;
        v.add(pos);
        continue;
      }
      const bool lead = !(v.is_rn(c) || f.is_letter() || f.is_number());
      if ((f.is_letter() && !is_han(c)) || (lead && letter_not_han(pos + 1))) {
        if (lead) ++pos;
        bool letters = false;
        while (letter_not_han(pos)) {
          letters = true;
          ++pos;
        }
        if (letters || (!lead && letter_not_han(pos))) {
          if (!letters) ++pos;
          while (letter_not_han(pos)) ++pos;
          if (v.cpt(pos) == '\'' && pos + 1 < v.end) {
            const uint32_t a = to_lower(v.cpt(pos + 1));
            if (a == 's' || a == 't' || a == 'm' || a == 'd') {
              pos += 2;
            } else if (pos + 2 < v.end) {
              const uint32_t b = to_lower(v.cpt(pos + 2));
              if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) pos += 3;
            }
          }
          v.add(pos);
          continue;
        }
        if (lead) --pos;
      }
      if (f.is_number()) {
        v.digit_runs_of_three(pos);
        continue;
      }
      if (v.other_run(pos, c, f, true, true)) continue;
      v.whitespace_tail(pos, true);
    }
  });
}

void split_afmoe_digits(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out) {
  for_each_piece(cpts, in, out, [&](piece_view& v) {
    for (size_t pos = v.ini; pos < v.end;) {
      if (!v.flags(pos).is_number()) {
        ++pos;
        continue;
      }
      const size_t first = pos;
      while (pos < v.end && v.flags(pos).is_number()) ++pos;
      const size_t count = pos - first;
      size_t cur = first;
      if (count % 3) v.add(cur += count % 3);
      while (cur < first + count) v.add(cur += 3);
    }
    if (v.prev_end < v.end) v.add(v.end);
  });
}

void split_newlines(std::span<const uint32_t> cpts, const std::vector<size_t>& in, std::vector<size_t>& out) {
  size_t start = 0;
  for (size_t len : in) {
    size_t pos = start;
    const size_t end = start + len;
    while (pos < end) {
      const bool nl = cpts[pos] == '\n';
      const size_t run = pos;
      while (pos < end && (cpts[pos] == '\n') == nl) ++pos;
      out.push_back(pos - run);
    }
    start = end;
  }
}

}  // namespace gguf::vocab_detail
