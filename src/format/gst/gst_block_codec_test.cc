#include "format/gst/gst_block_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "format/gst/gst_format.h"

namespace grainscope::gst {
namespace {

using Records = std::vector<Record>;

std::vector<unsigned char> Encode(const Records& r) {
  std::vector<unsigned char> out(DeltaBlockBound(r.size()));
  out.resize(EncodeDeltaBlock(r.data(), r.size(), out.data()));
  return out;
}

Records Decode(const std::vector<unsigned char>& coded, size_t slots, std::string* problem) {
  Records out(slots);
  *problem = DecodeDeltaBlock(coded, out.data(), slots);
  return out;
}

bool Same(const Records& a, const Records& b) {
  if (a.size() != b.size()) return false;
  return a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(Record)) == 0;  // no memcmp(nullptr)
}

// A block the way threads record it: region begins and ends of `keys` regions, `gap` ticks apart
// on average, a two-slot message record now and then, and (with `wild`) clock jumps of any size
// in either direction and stray bytes in the reserved field.
Records Block(size_t slots, uint32_t keys, uint64_t gap, bool wild, uint32_t seed) {
  std::mt19937_64 rng(seed);
  Records r;
  uint64_t t = 1'000'000'000;
  while (r.size() < slots) {
    t += rng() % (2 * gap + 1);
    if (wild && rng() % 50 == 0) t = rng();  // anywhere, backwards included
    Record rec{t, static_cast<uint8_t>(1 + rng() % 2), 0, 0, static_cast<uint32_t>(1 + rng() % keys)};
    if (wild && rng() % 97 == 0) rec.reserved = static_cast<uint16_t>(rng());
    const bool message = rng() % 20 == 0;
    if (message) {
      rec.kind = kRecordSendBegin;
      rec.extra = 1;
    }
    r.push_back(rec);
    if (message) {
      Record slot;
      const uint64_t payload[2] = {rng(), rng()};
      std::memcpy(&slot, payload, sizeof slot);
      r.push_back(slot);  // may be cut off by the block's end: the coding keeps what is there
    }
  }
  r.resize(slots);
  return r;
}

TEST(DeltaBlock, RoundTripsExactly) {
  for (uint32_t keys : {1u, 8u, 16u, 17u, 300u}) {
    for (uint64_t gap : {0u, 40u, 5'000u, 100'000'000u}) {
      for (bool wild : {false, true}) {
        for (size_t slots : {size_t{0}, size_t{1}, size_t{2}, size_t{4096}}) {
          const Records r = Block(slots, keys, gap, wild, keys * 31 + static_cast<uint32_t>(gap) + wild);
          const std::vector<unsigned char> coded = Encode(r);
          ASSERT_LE(coded.size(), DeltaBlockBound(slots));
          std::string problem;
          const Records back = Decode(coded, slots, &problem);
          ASSERT_EQ(problem, "") << keys << " keys, gap " << gap << ", wild " << wild << ", " << slots << " slots";
          ASSERT_TRUE(Same(r, back)) << keys << " keys, gap " << gap << ", wild " << wild << ", " << slots << " slots";
        }
      }
    }
  }
}

TEST(DeltaBlock, AFewHotRegionsTakeAboutFourBytesPerEvent) {
  // 4 regions: 8 begin/end keys and 4 send keys, within the cache's 16.
  const Records r = Block(4096, 4, 500, false, 7);
  const double per_event = static_cast<double>(Encode(r).size()) / 4096.0;
  EXPECT_LT(per_event, 5.0);  // one word per record, the message slots verbatim (1 in 20 records)
  EXPECT_GE(per_event, 4.0);
}

TEST(DeltaBlock, EveryCutAndEveryFlippedBitIsAnErrorOrAnotherBlockNeverACrash) {
  const Records r = Block(300, 20, 1'000, true, 3);
  const std::vector<unsigned char> coded = Encode(r);
  std::string problem;
  for (size_t cut = 0; cut < coded.size(); ++cut) {
    const std::vector<unsigned char> prefix(coded.begin(), coded.begin() + static_cast<std::ptrdiff_t>(cut));
    Decode(prefix, r.size(), &problem);
    EXPECT_NE(problem, "") << "cut at " << cut;
  }
  for (size_t bit = 0; bit < coded.size() * 8; ++bit) {
    std::vector<unsigned char> flipped = coded;
    flipped[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
    Decode(flipped, r.size(), &problem);  // a changed block or an error: the chunk's CRC tells which
  }
}

TEST(DeltaBlock, ErrorsNameTheRecordAndTheByte) {
  const Records r = {{100, 1, 0, 0, 5}, {150, 1, 0, 0, 5}};
  std::vector<unsigned char> coded = Encode(r);  // word + key, then one word
  ASSERT_EQ(coded.size(), 16u);
  std::string problem;

  std::vector<unsigned char> extra = coded;
  extra.push_back(0);
  Decode(extra, 2, &problem);
  EXPECT_EQ(problem, "record 2 at byte 16: 1 bytes left after the last record");

  std::vector<unsigned char> reserved = coded;
  reserved[12] |= 0x40;
  Decode(reserved, 2, &problem);
  EXPECT_EQ(problem, "record 1 at byte 12: reserved bits 6-7 of the record word are set");

  std::vector<unsigned char> unfilled = coded;
  unfilled[12] = (unfilled[12] & 0xf0) | 3;  // slot 3 never received a key
  Decode(unfilled, 2, &problem);
  EXPECT_EQ(problem, "record 1 at byte 12: refers to cache slot 3 before any key was placed there");

  std::vector<unsigned char> misplaced = coded;
  misplaced[0] |= 2;  // the first key claims slot 2; the cache's next free slot is 0
  Decode(misplaced, 2, &problem);
  EXPECT_EQ(problem, "record 0 at byte 0: a new key placed in cache slot 2, expected slot 0");

  Decode(coded, 3, &problem);
  EXPECT_EQ(problem, "record 2 at byte 16: the coded block ends 1 slots short");
}

}  // namespace
}  // namespace grainscope::gst
