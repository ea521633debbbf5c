// The public accessors of gguf::vocab: fields of the loaded vocab_data and vocab::impl.
#include <algorithm>

#include "vocab/vocab_impl.h"

namespace gguf {

vocab_type vocab::type() const noexcept { return impl_->d.type; }
std::string_view vocab::model_name() const noexcept { return impl_->model_name; }
std::string_view vocab::pre() const noexcept { return impl_->pre; }
std::string_view vocab::pre_type() const noexcept { return impl_->pre_type; }
uint32_t vocab::n_tokens() const noexcept { return uint32_t(impl_->d.tokens.size()); }
std::string_view vocab::token_text(int32_t id) const { return impl_->d.tokens.at(size_t(id)).text; }
float vocab::token_score(int32_t id) const { return impl_->d.tokens.at(size_t(id)).score; }
gguf::token_type vocab::token_type(int32_t id) const { return impl_->d.tokens.at(size_t(id)).type; }
uint32_t vocab::token_attr(int32_t id) const { return impl_->d.attrs.at(size_t(id)); }
int32_t vocab::find(std::string_view text) const { return impl_->d.find(text); }
int32_t vocab::bos() const noexcept { return impl_->d.bos; }
int32_t vocab::eos() const noexcept { return impl_->d.eos; }
int32_t vocab::eot() const noexcept { return impl_->d.eot; }
int32_t vocab::eom() const noexcept { return impl_->d.eom; }
int32_t vocab::unk() const noexcept { return impl_->d.unk; }
int32_t vocab::sep() const noexcept { return impl_->d.sep; }
int32_t vocab::pad() const noexcept { return impl_->d.pad; }
int32_t vocab::mask() const noexcept { return impl_->d.mask; }
int32_t vocab::cls() const noexcept { return impl_->d.bos; }
int32_t vocab::nl() const noexcept { return impl_->d.nl; }
int32_t vocab::fim_pre() const noexcept { return impl_->fim_pre; }
int32_t vocab::fim_suf() const noexcept { return impl_->fim_suf; }
int32_t vocab::fim_mid() const noexcept { return impl_->fim_mid; }
int32_t vocab::fim_pad() const noexcept { return impl_->fim_pad; }
int32_t vocab::fim_rep() const noexcept { return impl_->fim_rep; }
int32_t vocab::fim_sep() const noexcept { return impl_->fim_sep; }
bool vocab::is_eog(int32_t id) const { return std::binary_search(impl_->eog.begin(), impl_->eog.end(), id); }
bool vocab::add_bos() const noexcept { return impl_->d.add_bos; }
bool vocab::add_eos() const noexcept { return impl_->d.add_eos; }
bool vocab::add_sep() const noexcept { return impl_->d.add_sep; }
bool vocab::add_space_prefix() const noexcept { return impl_->d.add_space_prefix; }
bool vocab::remove_extra_whitespaces() const noexcept { return impl_->d.remove_extra_whitespaces; }
bool vocab::clean_spaces() const noexcept { return impl_->d.clean_spaces; }
std::span<const std::string> vocab::warnings() const noexcept { return impl_->warnings; }

}  // namespace gguf
