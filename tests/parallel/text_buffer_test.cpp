// text_buffer_test.cpp — the bytes a sink holds (trawl/detail/text_buffer.hpp), as the driver
// hands them over: pieces of a record, stable or valid only until the sink's floor, ranges
// read between, against the record itself.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

#include "oracle.hpp"
#include "trawl/detail/text_buffer.hpp"

namespace {

/// Delivers `record` in random pieces (a share of them stable), reads ranges of at most
/// `longest` bytes from what is held after each piece, then floors at a random later point and
/// overwrites the piece's bytes, as a recycled buffer would be.
void deliver_and_read(std::mt19937_64& rng, const std::string& record, std::size_t seam, std::size_t longest,
                      double stable_share) {
  trawl::detail::text_buffer buf(seam);
  std::bernoulli_distribution stable(stable_share);
  std::string piece;
  std::uint64_t pos = 0, floor = 0;
  while (pos < record.size()) {
    const std::size_t n = std::min<std::size_t>(record.size() - pos, 1 + rng() % 5000);
    const bool st = stable(rng);
    piece.assign(record, pos, n);
    buf.append(pos, st ? std::string_view(record).substr(pos, n) : std::string_view(piece), st);
    pos += n;
    ASSERT_EQ(buf.end(), pos);
    ASSERT_LE(buf.begin(), floor);
    for (int q = 0; q < 30; ++q) {
      const std::uint64_t a = buf.begin() + rng() % (buf.end() - buf.begin() + 1);
      const std::uint64_t b = std::min<std::uint64_t>(buf.end(), a + rng() % (longest + 1));
      ASSERT_EQ(buf.at(a, b), std::string_view(record).substr(a, b - a)) << "range " << a << ".." << b;
    }
    if (rng() % 3 != 0) floor = std::min<std::uint64_t>(pos, floor + rng() % 8000);
    buf.drop_before(floor);
    piece.assign(piece.size(), '#');  // the driver's buffer goes back to its pool
  }
  const std::uint64_t a = std::max(buf.begin(), floor);
  EXPECT_EQ(buf.at(a, buf.end()), std::string_view(record).substr(a));
}

TEST(TextBuffer, HeldBytesAreTheRecordsWithAndWithoutASeam) {
  std::mt19937_64 rng(61);
  for (int round = 0; round < 20; ++round) {
    const std::string record = oracle::random_text(rng, 1000 + rng() % 60000, "ACGTN");
    const double share = round % 3 == 0 ? 0.0 : round % 3 == 1 ? 0.5 : 1.0;
    deliver_and_read(rng, record, 0, 6000, share);     // no seam: copies, any range
    deliver_and_read(rng, record, 100, 100, share);    // a seam of 100: ranges of up to 100
    deliver_and_read(rng, record, 7000, 7000, share);  // a seam longer than the pieces
  }
}

TEST(TextBuffer, ARangeLongerThanTheSeamAcrossItThrows) {
  trawl::detail::text_buffer buf(10);
  const std::string a(50, 'a'), b(50, 'b');
  buf.append(0, a, false);
  buf.drop_before(20);  // keeps [20, 50)
  buf.append(50, b, false);
  EXPECT_EQ(buf.at(45, 60), std::string(5, 'a') + std::string(10, 'b'));  // within the seam
  EXPECT_EQ(buf.at(55, 100), std::string(45, 'b'));                         // within the view
  EXPECT_THROW((void)buf.at(30, 70), std::logic_error);
}

}  // namespace
