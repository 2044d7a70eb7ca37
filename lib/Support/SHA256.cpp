//===- SHA256.cpp - SHA-256 on the CPU's SHA extensions -------------------===//
//
// The compression function on x86 SHA-NI follows Intel's "Intel SHA
// Extensions" (Gulley et al., 2013): the state is kept as ABEF/CDGH, each
// SHA256RNDS2 runs two rounds, SHA256MSG1/MSG2 extend the message schedule
// four words at a time. Padding is FIPS 180-4 section 5.1.1.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Support/SHA256.h"

#include "llvm/Support/ErrorHandling.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define BLUEPRINT_SHA_EXTENSIONS 1
#include <cpuid.h>
#include <immintrin.h>
#endif

using namespace blueprint;

namespace {

/// FIPS 180-4 section 5.3.3.
constexpr std::array<uint32_t, 8> kInitialState = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

#ifdef BLUEPRINT_SHA_EXTENSIONS

/// FIPS 180-4 section 4.2.2.
alignas(16) constexpr uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

bool cpuHasSHAExtensions() {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
    return false;
  bool ssse3 = ecx & (1u << 9), sse41 = ecx & (1u << 19);
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    return false;
  bool sha = ebx & (1u << 29);
  return ssse3 && sse41 && sha;
}

/// Compresses `numBlocks` 64-byte blocks of `data` into `state`.
__attribute__((target("sha,sse4.1,ssse3"))) void
compressBlocks(std::array<uint32_t, 8> &state, const uint8_t *data,
               size_t numBlocks) {
  // Big-endian message words.
  const __m128i byteSwap =
      _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i cdab = _mm_shuffle_epi32(
      _mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[0])), 0xB1);
  __m128i efgh = _mm_shuffle_epi32(
      _mm_loadu_si128(reinterpret_cast<const __m128i *>(&state[4])), 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

  for (; numBlocks > 0; --numBlocks, data += 64) {
    __m128i abefBefore = abef, cdghBefore = cdgh;
    // Four schedule words per step: W[0..3] from the block, the rest by
    // W[i] = msg2(msg1(W[i-4], W[i-3]) + (W[i-2]:W[i-1] >> 32), W[i-1]).
    __m128i words[16];
    for (int step = 0; step < 16; ++step) {
      if (step < 4)
        words[step] =
            _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i *>(
                                 data + 16 * step)),
                             byteSwap);
      else
        words[step] = _mm_sha256msg2_epu32(
            _mm_add_epi32(
                _mm_sha256msg1_epu32(words[step - 4], words[step - 3]),
                _mm_alignr_epi8(words[step - 1], words[step - 2], 4)),
            words[step - 1]);
      __m128i message = _mm_add_epi32(
          words[step], _mm_load_si128(reinterpret_cast<const __m128i *>(
                           &kRoundConstants[4 * step])));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, message);
      abef =
          _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(message, 0x0E));
    }
    abef = _mm_add_epi32(abef, abefBefore);
    cdgh = _mm_add_epi32(cdgh, cdghBefore);
  }

  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[0]),
                   _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i *>(&state[4]),
                   _mm_alignr_epi8(dchg, feba, 8));
}

#else

bool cpuHasSHAExtensions() { return false; }

void compressBlocks(std::array<uint32_t, 8> &, const uint8_t *, size_t) {
  llvm_unreachable("no SHA extensions on this target");
}

#endif

} // namespace

bool SHA256Hasher::usesSHAExtensions() {
  static const bool available = cpuHasSHAExtensions();
  return available;
}

SHA256Hasher::SHA256Hasher()
    : accelerated(usesSHAExtensions()), state(kInitialState) {}

void SHA256Hasher::update(llvm::ArrayRef<uint8_t> data) {
  // An empty ArrayRef may have a null data(), which memcpy must not see.
  if (data.empty())
    return;
  if (!accelerated) {
    portable.update(data);
    return;
  }
  totalBytes += data.size();
  if (blockBytes > 0) {
    size_t taken = std::min(data.size(), block.size() - blockBytes);
    std::memcpy(block.data() + blockBytes, data.data(), taken);
    blockBytes += taken;
    data = data.drop_front(taken);
    if (blockBytes < block.size())
      return;
    compressBlocks(state, block.data(), 1);
    blockBytes = 0;
  }
  size_t wholeBlocks = data.size() / 64;
  compressBlocks(state, data.data(), wholeBlocks);
  data = data.drop_front(wholeBlocks * 64);
  std::memcpy(block.data(), data.data(), data.size());
  blockBytes = data.size();
}

std::array<uint8_t, 32> SHA256Hasher::final() {
  if (!accelerated)
    return portable.final();
  // 0x80, zeros up to 56 mod 64, then the message length in bits as a
  // big-endian 64-bit integer.
  uint64_t bits = totalBytes * 8;
  std::array<uint8_t, 72> padding{};
  padding[0] = 0x80;
  size_t zeros = (blockBytes < 56 ? 56 : 120) - blockBytes;
  for (int byte = 0; byte < 8; ++byte)
    padding[zeros + byte] = static_cast<uint8_t>(bits >> (56 - 8 * byte));
  update(llvm::ArrayRef<uint8_t>(padding.data(), zeros + 8));
  std::array<uint8_t, 32> digest;
  for (int word = 0; word < 8; ++word)
    for (int byte = 0; byte < 4; ++byte)
      digest[4 * word + byte] =
          static_cast<uint8_t>(state[word] >> (24 - 8 * byte));
  return digest;
}
