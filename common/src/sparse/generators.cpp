#include "cudalab/sparse/generators.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "parallel.h"

namespace cudalab::sparse {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument(what);
}

constexpr std::int64_t kMaxIndex = std::numeric_limits<index_t>::max();

// rng() % bound: the bias is below bound / 2^64, and unlike std::uniform_int_distribution the
// result is the same with every standard library.
std::uint64_t below(std::mt19937_64& rng, std::uint64_t bound) {
  return rng() % bound;
}

// A matrix value from 64 random bits.
float value_from_bits(std::uint64_t r, Values kind) {
  if (kind == Values::small_ints) {
    const int k = static_cast<int>(r % 8);  // 0..7 -> -4..-1, 1..4
    return static_cast<float>(k < 4 ? k - 4 : k - 3);
  }
  // Magnitude m * 2^-23 with m in 1..2^23 (exact in float), sign from another bit.
  const float magnitude = static_cast<float>((r >> 41) + 1) * (1.0f / 8388608.0f);
  return ((r >> 40) & 1) != 0 ? -magnitude : magnitude;
}

float random_value(std::mt19937_64& rng, Values kind) {
  return value_from_bits(rng(), kind);
}

template <typename T>
void shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  // Fisher-Yates with our own index draw (std::shuffle's algorithm is unspecified).
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(rng, i)]);
}

std::vector<index_t> random_permutation(index_t n, std::mt19937_64& rng) {
  std::vector<index_t> p(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) p[i] = i;
  shuffle(p, rng);
  return p;
}

void check_matrix_size(index_t rows, index_t cols) {
  if (rows < 0 || cols < 0)
    fail("matrix size must not be negative, got " + std::to_string(rows) + " x " +
         std::to_string(cols));
}

void check_length(index_t length, index_t cols, const char* what) {
  if (length < 0 || length > cols)
    fail(std::string(what) + " must be in 0.." + std::to_string(cols) +
         " (the column count), got " + std::to_string(length));
}

// Appends one row of `length` distinct uniform columns (sorted) with random values. `used` is a
// cols-long scratch array of zeros, returned to zeros.
class RowBuilder {
 public:
  RowBuilder(index_t rows, index_t cols, std::uint64_t seed, Values values)
      : rng_(seed), values_(values), used_(static_cast<std::size_t>(cols), 0) {
    m_.rows = rows;
    m_.cols = cols;
    m_.row_ptr.assign(1, 0);
  }

  std::mt19937_64& rng() { return rng_; }

  void add_row(index_t length) {
    if (m_.col_idx.size() + static_cast<std::size_t>(length) > static_cast<std::size_t>(kMaxIndex))
      fail("generated matrix has more than 2^31 - 1 entries");
    // Floyd's algorithm: `length` distinct values from 0..cols-1 in O(length) draws.
    const std::int64_t cols = m_.cols;
    chosen_.clear();
    for (std::int64_t j = cols - length; j < cols; ++j) {
      const auto t = static_cast<index_t>(below(rng_, static_cast<std::uint64_t>(j) + 1));
      const index_t pick = used_[t] != 0 ? static_cast<index_t>(j) : t;
      used_[pick] = 1;
      chosen_.push_back(pick);
    }
    std::sort(chosen_.begin(), chosen_.end());
    for (index_t c : chosen_) {
      used_[c] = 0;
      m_.col_idx.push_back(c);
      m_.val.push_back(random_value(rng_, values_));
    }
    m_.row_ptr.push_back(static_cast<index_t>(m_.col_idx.size()));
  }

  CsrMatrix take() { return std::move(m_); }

 private:
  std::mt19937_64 rng_;
  Values values_;
  std::vector<unsigned char> used_;
  std::vector<index_t> chosen_;
  CsrMatrix m_;
};

// Fills one row of `length` distinct uniform columns (sorted) with values, from the draws of a
// counter-based stream: Floyd's algorithm as in RowBuilder, the draws numbered from 0 (columns
// first, then values). Thread-local: `used` is its own cols-long scratch array of zeros.
class RowFiller {
 public:
  explicit RowFiller(index_t cols) : cols_(cols) {}

  void fill(std::uint64_t stream, index_t length, Values values, index_t* col, float* val) {
    // Short rows look their few columns up in `chosen_`; long ones in `used_`, a byte per column.
    const bool short_row = length <= 32;
    if (!short_row && used_.empty()) used_.assign(static_cast<std::size_t>(cols_), 0);
    chosen_.clear();
    std::uint64_t k = 0;
    for (std::int64_t j = std::int64_t{cols_} - length; j < cols_; ++j) {
      const auto t =
          static_cast<index_t>(detail::draw(stream, k++) % (static_cast<std::uint64_t>(j) + 1));
      const bool taken = short_row ? std::find(chosen_.begin(), chosen_.end(), t) != chosen_.end()
                                   : used_[static_cast<std::size_t>(t)] != 0;
      const index_t pick = taken ? static_cast<index_t>(j) : t;
      if (!short_row) used_[static_cast<std::size_t>(pick)] = 1;
      chosen_.push_back(pick);
    }
    std::sort(chosen_.begin(), chosen_.end());
    for (std::size_t e = 0; e < chosen_.size(); ++e) {
      if (!short_row) used_[static_cast<std::size_t>(chosen_[e])] = 0;
      col[e] = chosen_[e];
      val[e] = value_from_bits(detail::draw(stream, k++), values);
    }
  }

 private:
  index_t cols_;
  std::vector<unsigned char> used_;
  std::vector<index_t> chosen_;
};

// A square matrix of `rows` rows with no entries yet (room for `nnz`), for a stencil to fill row
// by row.
CsrMatrix empty_square(index_t rows, std::int64_t nnz) {
  CsrMatrix a;
  a.rows = a.cols = rows;
  a.row_ptr.reserve(static_cast<std::size_t>(a.rows) + 1);
  a.col_idx.reserve(static_cast<std::size_t>(nnz));
  a.val.reserve(static_cast<std::size_t>(nnz));
  return a;
}

// Appends one entry to the row being filled; columns must come in increasing order.
void add_entry(CsrMatrix& a, index_t col, float v) {
  a.col_idx.push_back(col);
  a.val.push_back(v);
}

// Closes the row being filled.
void end_row(CsrMatrix& a) {
  a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
}

}  // namespace

CsrMatrix poisson_2d(index_t n) {
  if (n < 1 || std::int64_t{n} * n * 5 > kMaxIndex)
    fail("poisson_2d: n must be positive with 5 n^2 entries fitting int32, got " +
         std::to_string(n));
  // Grid line i (rows i*n .. i*n + n - 1) holds n centres, 2 (n - 1) left and right neighbours,
  // and n up and n down neighbours unless it is the first or the last line: where each line
  // starts is known first, so that threads can fill whole lines.
  std::vector<index_t> line_start(static_cast<std::size_t>(n) + 1, 0);
  for (index_t i = 0; i < n; ++i)
    line_start[static_cast<std::size_t>(i) + 1] = line_start[static_cast<std::size_t>(i)] + n +
                                                  2 * (n - 1) + (i > 0 ? n : 0) +
                                                  (i + 1 < n ? n : 0);
  CsrMatrix a;
  a.rows = a.cols = n * n;
  a.row_ptr.resize(static_cast<std::size_t>(a.rows) + 1);
  a.col_idx.resize(static_cast<std::size_t>(line_start.back()));
  a.val.resize(static_cast<std::size_t>(line_start.back()));
  a.row_ptr.back() = line_start.back();
  const int threads = detail::thread_count(a.col_idx.size(), std::size_t{1} << 20);
  detail::run_threads(threads, [&](int t) {
    const auto last =
        static_cast<index_t>(detail::part_begin(static_cast<std::size_t>(n), t + 1, threads));
    for (auto i = static_cast<index_t>(detail::part_begin(static_cast<std::size_t>(n), t, threads));
         i < last; ++i) {
      index_t e = line_start[static_cast<std::size_t>(i)];
      const auto add = [&](index_t col, float v) {
        a.col_idx[static_cast<std::size_t>(e)] = col;
        a.val[static_cast<std::size_t>(e)] = v;
        ++e;
      };
      for (index_t j = 0; j < n; ++j) {
        const index_t row = i * n + j;
        a.row_ptr[static_cast<std::size_t>(row)] = e;
        // Neighbours in increasing column order: up, left, centre, right, down.
        if (i > 0) add(row - n, -1.0f);
        if (j > 0) add(row - 1, -1.0f);
        add(row, 4.0f);
        if (j + 1 < n) add(row + 1, -1.0f);
        if (i + 1 < n) add(row + n, -1.0f);
      }
    }
  });
  return a;
}

CsrMatrix poisson_3d(index_t n) {
  if (n < 1 || std::int64_t{n} * n * n * 7 > kMaxIndex)
    fail("poisson_3d: n must be positive with 7 n^3 entries fitting int32, got " +
         std::to_string(n));
  CsrMatrix a = empty_square(n * n * n, std::int64_t{7} * n * n * n - std::int64_t{6} * n * n);
  const index_t plane = n * n;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j)
      for (index_t k = 0; k < n; ++k) {
        const index_t row = (i * n + j) * n + k;
        if (i > 0) add_entry(a, row - plane, -1.0f);
        if (j > 0) add_entry(a, row - n, -1.0f);
        if (k > 0) add_entry(a, row - 1, -1.0f);
        add_entry(a, row, 6.0f);
        if (k + 1 < n) add_entry(a, row + 1, -1.0f);
        if (j + 1 < n) add_entry(a, row + n, -1.0f);
        if (i + 1 < n) add_entry(a, row + plane, -1.0f);
        end_row(a);
      }
  return a;
}

CsrMatrix power_law_matrix(index_t rows, index_t cols, index_t min_length, index_t max_length,
                           std::uint64_t seed, Values values) {
  check_matrix_size(rows, cols);
  if (min_length < 1 || min_length > max_length || max_length > cols)
    fail("power_law_matrix: need 1 <= min_length <= max_length <= cols, got " +
         std::to_string(min_length) + ", " + std::to_string(max_length) + ", " +
         std::to_string(cols));
  // Counter-based: row i's length is draw i of one stream, its columns and values the draws of a
  // stream of its own, so that threads can build any rows (the perf matrix has 2^21 rows).
  const std::uint64_t key = detail::mix64(seed);
  const std::uint64_t length_stream = detail::substream(key, 0);
  const std::uint64_t row_key = detail::substream(key, 1);
  CsrMatrix a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  std::int64_t nnz = 0;
  for (index_t i = 0; i < rows; ++i) {
    // u in (0, 1]; the division is correctly rounded, so the length is portable.
    const double u = static_cast<double>(
                         (detail::draw(length_stream, static_cast<std::uint64_t>(i)) >> 11) + 1) *
                     (1.0 / 9007199254740992.0);
    const double q = static_cast<double>(min_length) / u;
    nnz += q >= static_cast<double>(max_length) ? max_length : static_cast<index_t>(q);
    if (nnz > kMaxIndex) fail("generated matrix has more than 2^31 - 1 entries");
    a.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<index_t>(nnz);
  }
  a.col_idx.resize(static_cast<std::size_t>(nnz));
  a.val.resize(static_cast<std::size_t>(nnz));
  // Each thread takes the rows that start in its share of the entries.
  const int threads = detail::thread_count(static_cast<std::size_t>(nnz), std::size_t{1} << 18);
  const auto first_row = [&](int t) {
    if (t == threads) return rows;
    const auto k =
        static_cast<index_t>(detail::part_begin(static_cast<std::size_t>(nnz), t, threads));
    return static_cast<index_t>(std::lower_bound(a.row_ptr.begin(), a.row_ptr.end() - 1, k) -
                                a.row_ptr.begin());
  };
  detail::run_threads(threads, [&](int t) {
    RowFiller filler(cols);
    const index_t end = first_row(t + 1);
    for (index_t i = first_row(t); i < end; ++i)
      filler.fill(detail::substream(row_key, static_cast<std::uint64_t>(i)), a.row_length(i),
                  values, a.col_idx.data() + a.row_ptr[i], a.val.data() + a.row_ptr[i]);
  });
  return a;
}

CsrMatrix random_matrix(index_t rows, index_t cols, index_t min_length, index_t max_length,
                        std::uint64_t seed, Values values) {
  check_matrix_size(rows, cols);
  check_length(max_length, cols, "random_matrix: max_length");
  if (min_length < 0 || min_length > max_length)
    fail("random_matrix: need 0 <= min_length <= max_length, got " + std::to_string(min_length) +
         ", " + std::to_string(max_length));
  RowBuilder b(rows, cols, seed, values);
  const auto span = static_cast<std::uint64_t>(max_length - min_length) + 1;
  for (index_t i = 0; i < rows; ++i)
    b.add_row(min_length + static_cast<index_t>(below(b.rng(), span)));
  return b.take();
}

CsrMatrix long_row_matrix(index_t rows, index_t cols, index_t row_length, index_t long_row,
                          index_t long_length, std::uint64_t seed, Values values) {
  check_matrix_size(rows, cols);
  check_length(row_length, cols, "long_row_matrix: row_length");
  check_length(long_length, cols, "long_row_matrix: long_length");
  if (long_row < 0 || long_row >= rows)
    fail("long_row_matrix: long_row must be in 0.." + std::to_string(rows - 1) + ", got " +
         std::to_string(long_row));
  RowBuilder b(rows, cols, seed, values);
  for (index_t i = 0; i < rows; ++i) b.add_row(i == long_row ? long_length : row_length);
  return b.take();
}

CsrMatrix empty_rows_matrix(index_t rows, index_t cols, index_t row_length, int empty_percent,
                            std::uint64_t seed, Values values) {
  check_matrix_size(rows, cols);
  check_length(row_length, cols, "empty_rows_matrix: row_length");
  if (empty_percent < 0 || empty_percent > 100)
    fail("empty_rows_matrix: empty_percent must be in 0..100, got " +
         std::to_string(empty_percent));
  RowBuilder b(rows, cols, seed, values);
  for (index_t i = 0; i < rows; ++i) {
    const bool empty =
        i == 0 || i == rows - 1 || below(b.rng(), 100) < static_cast<std::uint64_t>(empty_percent);
    b.add_row(empty ? 0 : row_length);
  }
  return b.take();
}

EdgeList kronecker_graph(int scale, int edge_factor, std::uint64_t seed,
                         const KroneckerParams& params) {
  if (scale < 0 || scale > 30) fail("kronecker_graph: scale must be in 0..30");
  if (edge_factor < 1) fail("kronecker_graph: edge_factor must be positive");
  const double a = params.a, b = params.b, c = params.c;
  if (!(a >= 0 && b >= 0 && c >= 0 && a + b + c <= 1.0))
    fail("kronecker_graph: need a, b, c >= 0 and a + b + c <= 1");
  const std::int64_t n = std::int64_t{1} << scale;
  const std::int64_t m = n * edge_factor;
  // The quadrant of a level from 16 random bits x: a if x < ta, b if x < tab, c if x < tabc,
  // else d (the probabilities rounded to multiples of 2^-16; llround of an exact product).
  const auto threshold = [](double p) {
    return static_cast<std::uint32_t>(std::llround(std::min(p, 1.0) * 65536.0));
  };
  const std::uint32_t ta = threshold(a), tab = threshold(a + b), tabc = threshold(a + b + c);
  std::mt19937_64 rng(seed);
  EdgeList g;
  g.num_vertices = static_cast<index_t>(n);
  const std::vector<index_t> perm = random_permutation(g.num_vertices, rng);
  g.src.resize(static_cast<std::size_t>(m));
  g.dst.resize(static_cast<std::size_t>(m));
  // Edge e draws words e * words .. e * words + words - 1 of a counter-based stream, four levels
  // of 16 bits per word, so that threads can draw any edges.
  const std::uint64_t stream = detail::mix64(seed ^ 0x4b726f6e65636b72ULL);  // "Kroneckr"
  const auto words = static_cast<std::uint64_t>((scale + 3) / 4);
  const int threads = detail::thread_count(static_cast<std::size_t>(m), std::size_t{1} << 18);
  detail::run_threads(threads, [&](int t) {
    const std::size_t end = detail::part_begin(static_cast<std::size_t>(m), t + 1, threads);
    for (std::size_t e = detail::part_begin(static_cast<std::size_t>(m), t, threads); e < end;
         ++e) {
      index_t u = 0, v = 0;
      int level = 0;
      for (std::uint64_t w = 0; w < words; ++w) {
        const std::uint64_t r = detail::draw(stream, e * words + w);
        for (int q = 0; q < 4 && level < scale; ++q, ++level) {
          const auto x = static_cast<std::uint32_t>((r >> (16 * q)) & 0xffffu);
          // Quadrants of the adjacency matrix: a top-left, b top-right, c bottom-left,
          // d bottom-right.
          const index_t row_bit = x >= tab ? 1 : 0;
          const index_t col_bit = (x >= ta && x < tab) || x >= tabc ? 1 : 0;
          u |= row_bit << level;
          v |= col_bit << level;
        }
      }
      g.src[e] = perm[static_cast<std::size_t>(u)];
      g.dst[e] = perm[static_cast<std::size_t>(v)];
    }
  });
  return g;
}

EdgeList grid_graph(index_t rows, index_t cols) {
  if (rows < 0 || cols < 0 || std::int64_t{rows} * cols > kMaxIndex)
    fail("grid_graph: rows * cols must be in 0..2^31 - 1");
  EdgeList g;
  g.num_vertices = rows * cols;
  for (index_t r = 0; r < rows; ++r)
    for (index_t c = 0; c < cols; ++c) {
      const index_t v = r * cols + c;
      if (c + 1 < cols) g.add(v, v + 1);
      if (r + 1 < rows) g.add(v, v + cols);
    }
  return g;
}

EdgeList chain_graph(index_t n) {
  if (n < 0) fail("chain_graph: n must not be negative");
  EdgeList g;
  g.num_vertices = n;
  for (index_t v = 0; v + 1 < n; ++v) g.add(v, v + 1);
  return g;
}

EdgeList disconnected_graph(index_t components, index_t component_size, index_t isolated,
                            std::uint64_t seed) {
  if (components < 0 || component_size < 1 || isolated < 0 ||
      std::int64_t{components} * component_size + isolated > kMaxIndex)
    fail("disconnected_graph: need components >= 0, component_size >= 1, isolated >= 0");
  std::mt19937_64 rng(seed);
  EdgeList g;
  g.num_vertices = components * component_size + isolated;
  for (index_t k = 0; k < components; ++k) {
    const index_t base = k * component_size;
    for (index_t i = 1; i < component_size; ++i)  // spanning tree: i joins an earlier vertex
      g.add(base + i, base + static_cast<index_t>(below(rng, static_cast<std::uint64_t>(i))));
    if (component_size < 2) continue;
    for (index_t e = 0; e < component_size; ++e) {  // extra edges, no self-loops
      const auto u = static_cast<index_t>(below(rng, static_cast<std::uint64_t>(component_size)));
      const auto step =
          1 + static_cast<index_t>(below(rng, static_cast<std::uint64_t>(component_size) - 1));
      g.add(base + u, base + (u + step) % component_size);
    }
  }
  const std::vector<index_t> perm = random_permutation(g.num_vertices, rng);
  for (std::size_t e = 0; e < g.num_edges(); ++e) {
    g.src[e] = perm[g.src[e]];
    g.dst[e] = perm[g.dst[e]];
  }
  return g;
}

EdgeList random_graph(index_t n, std::int64_t edges, std::uint64_t seed) {
  if (n < 0 || edges < 0 || (n == 0 && edges > 0))
    fail("random_graph: need n >= 0, edges >= 0, and vertices for any edge");
  std::mt19937_64 rng(seed);
  EdgeList g;
  g.num_vertices = n;
  g.src.reserve(static_cast<std::size_t>(edges));
  g.dst.reserve(static_cast<std::size_t>(edges));
  for (std::int64_t e = 0; e < edges; ++e) {
    const auto u = static_cast<index_t>(below(rng, static_cast<std::uint64_t>(n)));
    const auto v = static_cast<index_t>(below(rng, static_cast<std::uint64_t>(n)));
    g.add(u, v);
  }
  return g;
}

EdgeList add_loops_and_duplicates(const EdgeList& g, std::int64_t self_loops,
                                  std::int64_t duplicates, std::uint64_t seed) {
  if (self_loops < 0 || duplicates < 0) fail("add_loops_and_duplicates: negative count");
  if (self_loops > 0 && g.num_vertices == 0) fail("add_loops_and_duplicates: no vertices");
  if (duplicates > 0 && g.num_edges() == 0) fail("add_loops_and_duplicates: no edges to repeat");
  std::mt19937_64 rng(seed);
  EdgeList out = g;
  for (std::int64_t i = 0; i < self_loops; ++i) {
    const auto v = static_cast<index_t>(below(rng, static_cast<std::uint64_t>(g.num_vertices)));
    out.add(v, v);
  }
  for (std::int64_t i = 0; i < duplicates; ++i) {
    const std::size_t e = below(rng, g.num_edges());
    if ((rng() & 1) != 0)
      out.add(g.dst[e], g.src[e]);
    else
      out.add(g.src[e], g.dst[e]);
  }
  for (std::size_t i = out.src.size(); i > 1; --i) {
    const std::size_t j = below(rng, i);
    std::swap(out.src[i - 1], out.src[j]);
    std::swap(out.dst[i - 1], out.dst[j]);
  }
  return out;
}

}  // namespace cudalab::sparse
