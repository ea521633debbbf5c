#include "chat/template_impl.h"
namespace gguf::chat_detail {
result<std::string> apply_server(const chat_template_impl&, const chat_request&) {
  return error{errc::unsupported, no_offset, {}, "server mode: work in progress"};
}
}
