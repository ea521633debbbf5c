// Prints what @huggingface/gguf (a GGUF reader that is not ours) reads in a local file,
// as one JSON document: the data section offset, every key with its GGUF value type and
// value (arrays longer than 64 elements as their length only), every tensor's name,
// ggml type id, shape and offset. Used by tests/cli/test_edit_crosscheck.cpp.
// Usage: node tests/js/read_gguf.mjs FILE
import { gguf } from "@huggingface/gguf";

const path = process.argv[2];
const out = await gguf(path, { allowLocalFile: true, typedMetadata: true });
const kv = {};
for (const [key, entry] of Object.entries(out.typedMetadata)) {
  let value = entry.value;
  if (Array.isArray(value) && value.length > 64) value = { length: value.length };
  kv[key] = { type: entry.type, subType: entry.subType, value };
}
const tensors = out.tensorInfos.map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape, offset: t.offset }));
const text = JSON.stringify({ tensor_data_offset: out.tensorDataOffset, kv, tensors }, (_, v) =>
  typeof v === "bigint" ? v.toString() : v,
);
process.stdout.write(text + "\n");
