// RWKV token text unescaping (llama.cpp's llama_unescape_rwkv_token), for the model and
// for detokenization: the GGUF stores RWKV "world" tokens as escaped strings.
#pragma once

#include <string>
#include <string_view>

namespace gguf::vocab_detail {

/// The raw bytes of an escaped RWKV token text: `\t` `\n` `\r` become the control
/// characters, `\xHH` one byte (lowercase hex; other digits follow llama.cpp's
/// arithmetic), `\c` the character c; an unfinished escape at the end is dropped.
std::string rwkv_unescape(std::string_view escaped);
/// rwkv_unescape, appending to `out`.
void rwkv_unescape_append(std::string_view escaped, std::string& out);

}  // namespace gguf::vocab_detail
