#include "kernels/tokenizer.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "kernels/byte_reader.h"
#include "kernels/llama_checkpoint.h"

namespace kvsim::kernels {
namespace {

constexpr int kByteFallbackOffset = 3;  // llama2.c: byte b is token b + 3
constexpr int32_t kMaxPieceLength = 1 << 16;

// The byte NN of a "<0xNN>" piece, or -1.
int byte_piece_value(std::string_view piece) {
  if (piece.size() != 6 || piece.substr(0, 3) != "<0x" || piece[5] != '>') return -1;
  int value = 0;
  for (char c : piece.substr(3, 2)) {
    const int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                      : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                      : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                                                                  : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

}  // namespace

StatusOr<Tokenizer> Tokenizer::parse(std::span<const uint8_t> bytes, uint32_t vocab_size,
                                     const std::string& name) {
  ByteReader reader(bytes);
  int32_t max_length = 0;
  if (!reader.read_int32(&max_length)) {
    return Status::parse_error(name + ": truncated: expected an int32 max_token_length");
  }
  if (max_length <= 0 || max_length > kMaxPieceLength) {
    return Status::parse_error(fmt::format("{}: max_token_length = {}, expected 1..{}", name,
                                           max_length, kMaxPieceLength));
  }
  Tokenizer t;
  t.max_token_length_ = static_cast<uint32_t>(max_length);
  t.pieces_.resize(vocab_size);
  t.scores_.resize(vocab_size);
  for (uint32_t i = 0; i < vocab_size; ++i) {
    const std::string where = fmt::format("{}: token {} of {}", name, i, vocab_size);
    int32_t length = 0;
    if (!reader.read_float(&t.scores_[i]) || !reader.read_int32(&length)) {
      return Status::parse_error(where +
                                 ": truncated (expected a float score and an int32 length)");
    }
    if (!std::isfinite(t.scores_[i])) return Status::parse_error(where + ": non-finite score");
    if (length < 0 || length > max_length) {
      return Status::parse_error(
          fmt::format("{}: length {}, expected 0..{}", where, length, max_length));
    }
    if (!reader.read_string(static_cast<size_t>(length), &t.pieces_[i])) {
      return Status::parse_error(
          fmt::format("{}: truncated (expected {} bytes of piece)", where, length));
    }
  }
  if (reader.remaining() != 0) {
    return Status::parse_error(fmt::format(
        "{}: {} trailing bytes after {} tokens (does the vocabulary size match the checkpoint?)",
        name, reader.remaining(), vocab_size));
  }
  for (uint32_t i = 0; i < vocab_size; ++i) t.ids_.emplace(t.pieces_[i], static_cast<int>(i));
  return t;
}

StatusOr<Tokenizer> Tokenizer::load(const std::string& path, uint32_t vocab_size) {
  KVSIM_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, read_file_bytes(path));
  return parse(bytes, vocab_size, path);
}

int Tokenizer::lookup(std::string_view piece) const {
  const auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

void Tokenizer::encode_code_points(std::string_view text, std::vector<int>* tokens) const {
  const auto emit = [&](std::string_view unit) {
    const int id = lookup(unit);
    if (id >= 0) {
      tokens->push_back(id);
      return;
    }
    for (unsigned char byte : unit) {
      const int fallback = byte + kByteFallbackOffset;
      tokens->push_back(fallback < static_cast<int>(vocab_size()) ? fallback : 0);
    }
  };
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool next_continues =
        i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80;
    if (next_continues && i + 1 - start < 4) continue;
    emit(text.substr(start, i + 1 - start));
    start = i + 1;
  }
}

void Tokenizer::merge_pairs(std::vector<int>* tokens) const {
  std::string pair;
  while (tokens->size() >= 2) {
    float best_score = -1e10f;
    int best_id = -1;
    size_t best_index = 0;
    for (size_t i = 0; i + 1 < tokens->size(); ++i) {
      pair = piece((*tokens)[i]);
      pair += piece((*tokens)[i + 1]);
      const int id = lookup(pair);
      if (id >= 0 && scores_[static_cast<size_t>(id)] > best_score) {
        best_score = scores_[static_cast<size_t>(id)];
        best_id = id;
        best_index = i;
      }
    }
    if (best_id < 0) break;
    (*tokens)[best_index] = best_id;
    tokens->erase(tokens->begin() + static_cast<ptrdiff_t>(best_index) + 1);
  }
}

std::vector<int> Tokenizer::encode(std::string_view text, bool bos, bool eos,
                                   bool dummy_prefix) const {
  std::vector<int> tokens;
  if (bos) tokens.push_back(kBosToken);
  if (!text.empty() && dummy_prefix) encode_code_points(" ", &tokens);
  encode_code_points(text, &tokens);
  merge_pairs(&tokens);  // over every token, BOS included, as llama2.c does
  if (eos) tokens.push_back(kEosToken);
  return tokens;
}

std::string Tokenizer::decode(int prev, int token) const {
  std::string_view text = piece(token);
  if (prev == kBosToken && !text.empty() && text[0] == ' ') text.remove_prefix(1);
  const int byte = byte_piece_value(text);
  if (byte >= 0) return std::string(1, static_cast<char>(byte));
  return std::string(text);
}

std::string Tokenizer::decode_printable(int prev, int token) const {
  std::string text = decode(prev, token);
  if (text.size() == 1) {
    const unsigned char c = static_cast<unsigned char>(text[0]);
    if (!std::isprint(c) && !std::isspace(c)) return "";
  }
  return text;
}

std::vector<uint8_t> serialize_tokenizer(const std::vector<std::string>& pieces,
                                         const std::vector<float>& scores) {
  std::vector<uint8_t> out;
  const auto append = [&](const void* data, size_t n) { append_bytes(data, n, &out); };
  int32_t max_length = 1;
  for (const std::string& p : pieces)
    max_length = std::max(max_length, static_cast<int32_t>(p.size()));
  append(&max_length, sizeof(max_length));
  for (size_t i = 0; i < pieces.size(); ++i) {
    const int32_t length = static_cast<int32_t>(pieces[i].size());
    append(&scores[i], sizeof(float));
    append(&length, sizeof(length));
    append(pieces[i].data(), pieces[i].size());
  }
  return out;
}

}  // namespace kvsim::kernels
