// input_pieces.cpp — a .2bit input cut into the pieces the stream search decodes
// (input_pieces.hpp).
#include "parallel/input_pieces.hpp"

#include <algorithm>

#include "common/faulted.hpp"

namespace trawl::slicing {

void twobit_piece::decode(const io::twobit_file& f, std::size_t headroom, buffer_pool& pool) {
  try {
    if (n > 0) {
      out = pool.take();
      resize_faulted(out, headroom + n);
    }
    for (; failed < parts.size(); ++failed) {  // with no bases: checks the blocks
      const part& q = parts[failed];
      f.decode(q.seq, q.at, q.n, q.n > 0 ? out.data() + headroom + q.off : nullptr);
    }
  } catch (...) {
    error = std::current_exception();
  }
}

std::shared_ptr<twobit_piece> twobit_planner::next() {
  auto p = std::make_shared<twobit_piece>();
  const std::uint64_t length = f_.length(seq_);
  if (at_ == 0 && length < piece_size_ / 4) {
    p->whole = true;
    while (seq_ < f_.size()) {
      const std::uint64_t len = f_.length(seq_);
      if (len >= piece_size_ / 4 || (!p->parts.empty() && p->n + len > piece_size_)) break;
      p->parts.push_back({seq_, 0, static_cast<std::size_t>(len), p->n});
      p->n += static_cast<std::size_t>(len);
      ++seq_;
    }
    return p;
  }
  p->n = static_cast<std::size_t>(std::min<std::uint64_t>(piece_size_, length - at_));
  p->parts.push_back({seq_, at_, p->n, 0});
  at_ += p->n;
  if (at_ == length) {
    ++seq_;
    at_ = 0;
  }
  return p;
}

}  // namespace trawl::slicing
