// gguf/gguf.h — the whole public API in one include.
//
//   #include <gguf/gguf.h>
//   auto f = gguf::file::open("model.gguf").value();      // gguf/file.h
//   auto v = gguf::vocab::load(f).value();                 // gguf/vocab.h
//
// Each header below is one concern and may be included alone; this one includes them all,
// layer by layer as in docs/architecture.md (io, format, schema, quant, vocab, chat, model).
// scripts/test-package.sh checks that every public header is listed here and builds the
// installed-package consumer (examples/cmake-consumer) with this include only.
#pragma once

// io: errors, whole reads and writes, atomic output, remote files, UTF-8, worker threads,
// system libraries loaded at run time
#include "gguf/error.h"
#include "gguf/io.h"
#include "gguf/output.h"
#include "gguf/remote.h"
#include "gguf/shared_library.h"
#include "gguf/utf8.h"
#include "gguf/version.h"
#include "gguf/workers.h"

// format: the reader, the writer, editing, shards, byte order
#include "gguf/byte_swap.h"
#include "gguf/edit.h"
#include "gguf/file.h"
#include "gguf/format.h"
#include "gguf/model_files.h"
#include "gguf/split.h"
#include "gguf/writer.h"

// schema: standardized keys, validation, the naming convention
#include "gguf/keys.h"
#include "gguf/naming.h"
#include "gguf/schema.h"

// quant: dequantization, get_rows, row quantization
#include "gguf/quant.h"

// vocab and chat: tokenizers, chat templates
#include "gguf/chat.h"
#include "gguf/tokenizer_models.h"
#include "gguf/vocab.h"

// model: architectures, hparams, token embeddings, memory estimate, diff, model quantizer
#include "gguf/diff.h"
#include "gguf/estimate.h"
#include "gguf/model.h"
#include "gguf/quantize.h"
