// The llama2.c BPE tokenizer: loading `tokenizer.bin`, encoding as llama2.c's encode() does,
// and decoding pieces as its decode() does.
//
// File layout (little-endian): int32 max_token_length, then for each of the vocab_size tokens
// (vocab_size comes from the checkpoint): float score, int32 length, `length` bytes.
// A piece "<0xNN>" stands for the raw byte NN.
//
// encode(text, bos, eos):
//   1. BOS (id 1) when asked; then, for non-empty text, the dummy-prefix piece " ";
//   2. each UTF-8 code point becomes its piece when the vocabulary has it, else one
//      byte-fallback token per byte (id = byte + 3, llama2.c's convention);
//   3. repeatedly merge the adjacent pair whose concatenation is a piece with the highest
//      score (the leftmost on ties) until no pair merges;
//   4. EOS (id 2) when asked.
// A malformed or truncated file is a Status naming the file and the token where it failed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/status.h"

namespace kvsim::kernels {

inline constexpr int kBosToken = 1;
inline constexpr int kEosToken = 2;

class Tokenizer {
 public:
  // Reads a tokenizer file with `vocab_size` tokens.
  static StatusOr<Tokenizer> load(const std::string& path, uint32_t vocab_size);
  static StatusOr<Tokenizer> parse(std::span<const uint8_t> bytes, uint32_t vocab_size,
                                   const std::string& name);

  uint32_t vocab_size() const { return static_cast<uint32_t>(pieces_.size()); }
  const std::string& piece(int token) const { return pieces_[static_cast<size_t>(token)]; }

  // dummy_prefix = false skips step 1's " " (text that continues a sequence, e.g. the
  // teacher-forced text of `kvsim ppl`).
  std::vector<int> encode(std::string_view text, bool bos, bool eos,
                          bool dummy_prefix = true) const;

  // The text of `token` following `prev` (llama2.c decode: a leading space is dropped after
  // BOS; "<0xNN>" becomes the byte NN).
  std::string decode(int prev, int token) const;

  // decode(), but a lone non-printable, non-space byte becomes "" (llama2.c safe_printf).
  std::string decode_printable(int prev, int token) const;

 private:
  Tokenizer() = default;
  int lookup(std::string_view piece) const;  // -1 when absent
  void encode_code_points(std::string_view text, std::vector<int>* tokens) const;
  void merge_pairs(std::vector<int>* tokens) const;

  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  std::unordered_map<std::string_view, int> ids_;  // views into pieces_; first id wins
  uint32_t max_token_length_ = 0;
};

// Bytes of a tokenizer file for the given pieces and scores (tests, small models).
std::vector<uint8_t> serialize_tokenizer(const std::vector<std::string>& pieces,
                                         const std::vector<float>& scores);

}  // namespace kvsim::kernels
