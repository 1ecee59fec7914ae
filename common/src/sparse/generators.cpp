#include "cudalab/sparse/generators.h"

#include <algorithm>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

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

// Uniform in [0, 1) with 53 random bits: exact in double.
double unit_double(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
}

float random_value(std::mt19937_64& rng, Values kind) {
  const std::uint64_t r = rng();
  if (kind == Values::small_ints) {
    const int k = static_cast<int>(r % 8);  // 0..7 -> -4..-1, 1..4
    return static_cast<float>(k < 4 ? k - 4 : k - 3);
  }
  // Magnitude m * 2^-23 with m in 1..2^23 (exact in float), sign from another bit.
  const float magnitude = static_cast<float>((r >> 41) + 1) * (1.0f / 8388608.0f);
  return ((r >> 40) & 1) != 0 ? -magnitude : magnitude;
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

// A square matrix of `rows` rows with no entries yet, for a stencil to fill row by row.
CsrMatrix empty_square(index_t rows) {
  CsrMatrix a;
  a.rows = a.cols = rows;
  a.row_ptr.reserve(static_cast<std::size_t>(a.rows) + 1);
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
  CsrMatrix a = empty_square(n * n);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      const index_t row = i * n + j;
      // Neighbours in increasing column order: up, left, centre, right, down.
      if (i > 0) add_entry(a, row - n, -1.0f);
      if (j > 0) add_entry(a, row - 1, -1.0f);
      add_entry(a, row, 4.0f);
      if (j + 1 < n) add_entry(a, row + 1, -1.0f);
      if (i + 1 < n) add_entry(a, row + n, -1.0f);
      end_row(a);
    }
  return a;
}

CsrMatrix poisson_3d(index_t n) {
  if (n < 1 || std::int64_t{n} * n * n * 7 > kMaxIndex)
    fail("poisson_3d: n must be positive with 7 n^3 entries fitting int32, got " +
         std::to_string(n));
  CsrMatrix a = empty_square(n * n * n);
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
  RowBuilder b(rows, cols, seed, values);
  for (index_t i = 0; i < rows; ++i) {
    // u in (0, 1]; the division is correctly rounded, so the length is portable.
    const double u = static_cast<double>((b.rng()() >> 11) + 1) * (1.0 / 9007199254740992.0);
    const double q = static_cast<double>(min_length) / u;
    b.add_row(q >= static_cast<double>(max_length) ? max_length : static_cast<index_t>(q));
  }
  return b.take();
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
  std::mt19937_64 rng(seed);
  EdgeList g;
  g.num_vertices = static_cast<index_t>(n);
  g.src.resize(static_cast<std::size_t>(m));
  g.dst.resize(static_cast<std::size_t>(m));
  const double ab = a + b, abc = a + b + c;
  for (std::int64_t e = 0; e < m; ++e) {
    index_t u = 0, v = 0;
    for (int level = 0; level < scale; ++level) {
      const double r = unit_double(rng);
      // Quadrants of the adjacency matrix: a top-left, b top-right, c bottom-left, d bottom-right.
      const index_t row_bit = r >= ab ? 1 : 0;
      const index_t col_bit = (r >= a && r < ab) || r >= abc ? 1 : 0;
      u |= row_bit << level;
      v |= col_bit << level;
    }
    g.src[e] = u;
    g.dst[e] = v;
  }
  const std::vector<index_t> perm = random_permutation(g.num_vertices, rng);
  for (std::int64_t e = 0; e < m; ++e) {
    g.src[e] = perm[g.src[e]];
    g.dst[e] = perm[g.dst[e]];
  }
  // Shuffle the edge order (the same swaps on both arrays).
  for (std::size_t i = g.src.size(); i > 1; --i) {
    const std::size_t j = below(rng, i);
    std::swap(g.src[i - 1], g.src[j]);
    std::swap(g.dst[i - 1], g.dst[j]);
  }
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
