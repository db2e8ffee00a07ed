// text_buffer_test.cpp — the bytes a sink holds (trawl/detail/text_buffer.hpp), as the driver
// hands them over: pieces of a record, stable or valid only until the sink's floor, ranges
// read between, against the record itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "oracle.hpp"
#include "common/reserved_text.hpp"
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

// Windows of a record (window_set): every range read inside one window is the record's bytes;
// one that runs past a window's end is clipped to it, one that starts in a gap is empty.
TEST(WindowSet, RangesInsideWindowsAreTheRecords) {
  std::mt19937_64 rng(31);
  const std::string record = oracle::random_text(rng, 20000, "ACGTNacgt");
  trawl::detail::window_set ws;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> wins;
  for (std::uint64_t at = rng() % 50; at < record.size();) {
    const std::uint64_t hi = std::min<std::uint64_t>(record.size(), at + 1 + rng() % 300);
    record.copy(ws.add(at, hi - at), hi - at, at);
    wins.emplace_back(at, hi);
    at = hi + 1 + rng() % 200;
  }
  ASSERT_EQ(ws.size(), wins.size());
  EXPECT_THROW((void)ws.add(wins.back().first, 1), std::logic_error);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t a = rng() % record.size(), b = a + rng() % 100;
    const auto w = std::find_if(wins.begin(), wins.end(), [&](const auto& x) { return x.first <= a && a < x.second; });
    const std::string_view got = ws.at(a, b);
    if (w == wins.end()) {
      EXPECT_TRUE(got.empty()) << a << " " << b;
      continue;
    }
    const std::uint64_t hi = std::max(a, std::min(b, w->second));
    EXPECT_EQ(got, std::string_view(record).substr(a, hi - a)) << a << " " << b;
  }
}

// A reserved text has an address and no bytes: a sequence inside it is found with its place,
// and its ranges are read through its reader; ordinary memory is read where it lies.
TEST(ReservedText, RangesAreReadThroughTheReader) {
  std::mt19937_64 rng(37);
  const std::string bytes = oracle::random_text(rng, 100000, "ACGT");
  const trawl::detail::reserved_text text(bytes.size(), [&](std::uint64_t pos, std::size_t n, char* out) {
    ASSERT_LE(pos + n, bytes.size());
    bytes.copy(out, n, pos);
  });
  const std::string_view inside = text.view().substr(1000, 50000);
  const trawl::detail::reserved_view where = trawl::detail::reserved_of(inside);
  ASSERT_TRUE(where);
  EXPECT_EQ(where.origin, 1000u);
  std::string buf;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t a = rng() % 60000, b = a + rng() % 500;
    const std::uint64_t lo = std::min<std::uint64_t>(a, inside.size());
    const std::uint64_t hi = std::min<std::uint64_t>(std::max(a, b), inside.size());
    EXPECT_EQ(trawl::detail::read_bytes(inside, where, a, b, buf), std::string_view(bytes).substr(1000 + lo, hi - lo));
  }
  EXPECT_FALSE(trawl::detail::reserved_of(bytes));
  EXPECT_EQ(trawl::detail::read_bytes(bytes, {}, 5, 9, buf), std::string_view(bytes).substr(5, 4));
}

}  // namespace
