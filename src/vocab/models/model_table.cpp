// One row per vocab_type: factory, decoder, newline rule (see model_table.h).
#include "vocab/models/model_table.h"

namespace gguf::vocab_detail {
namespace {

std::unique_ptr<tokenizer_model> make_spm_lazy(const vocab_data& v) { return make_spm(v, true, /*lazy=*/true); }
std::unique_ptr<tokenizer_model> make_bpe_lazy(const vocab_data& v) { return make_bpe(v, true, /*lazy=*/true); }
std::unique_ptr<tokenizer_model> make_ugm_lazy(const vocab_data& v) {
  return make_ugm(v, true, true, /*lazy=*/true, ugm_plain_bytes(v.tokens.size()));
}
std::unique_ptr<tokenizer_model> make_wpm_lazy(const vocab_data& v) { return make_wpm(v, /*lazy=*/true); }
std::unique_ptr<tokenizer_model> make_rwkv_lazy(const vocab_data& v) { return make_rwkv(v, /*fast=*/true, /*lazy=*/true); }

constexpr model_row rows[] = {
    {vocab_type::spm, make_spm_lazy, piece_sentencepiece, newline_rule::byte_token},
    {vocab_type::bpe, make_bpe_lazy, piece_bpe, newline_rule::first_id},
    {vocab_type::wpm, make_wpm_lazy, piece_sentencepiece, newline_rule::pad},
    {vocab_type::ugm, make_ugm_lazy, piece_sentencepiece, newline_rule::first_id},
    {vocab_type::rwkv, make_rwkv_lazy, piece_rwkv, newline_rule::first_id},
};

}  // namespace

std::span<const model_row> model_table() noexcept { return rows; }

}  // namespace gguf::vocab_detail
