# Sourced by the record-*.sh scripts: where the reference llama.cpp and the test data are
# (../shared/reference/setup.sh makes the reference). Sets
#   ref   the reference folder: $ref when the script set it, else GGUF_REF_DIR, else
#         $HOME/.cache/gguf-ref
#   data  the test data folder: $data when the script set it, else GGUF_TEST_DATA, else
#         ../shared/data beside the repository
#   S     llama.cpp's source tree (headers, common/, ggml/)
#   B     its prebuilt libraries (libllama.v0.5.0.so, libggml*.so)
# Needs `root` (the repository) set first.
ref=${ref:-${GGUF_REF_DIR:-$HOME/.cache/gguf-ref}}
data=${data:-${GGUF_TEST_DATA:-$root/../shared/data}}
S=$ref/llsrc
B=$ref/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64
