#include "cudalab/sparse/io.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#if defined(CUDALAB_HAVE_ZLIB)
#include <zlib.h>
#endif

namespace cudalab::sparse {

namespace {

std::string format_message(const std::string& source, std::size_t line,
                           const std::string& problem) {
  if (line == 0) return source + ": " + problem;
  return source + ":" + std::to_string(line) + ": " + problem;
}

bool has_gzip_magic(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

#if defined(CUDALAB_HAVE_ZLIB)
std::string gunzip(const std::string& path, const std::string& compressed) {
  z_stream zs{};
  // 15 + 32: a zlib or gzip header, detected automatically; concatenated members are handled
  // by the loop below resetting the stream.
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw ParseError(path, 0, "cannot start gzip decoder");
  std::string out;
  char buffer[1 << 16];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  int status = Z_OK;
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = sizeof buffer;
    status = inflate(&zs, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - zs.avail_out);
    if (status == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // another gzip member follows
      continue;
    }
    if (status != Z_OK) break;
    if (zs.avail_in == 0 && zs.avail_out != 0) {
      status = Z_BUF_ERROR;  // input ended inside the stream
      break;
    }
  }
  const std::string reason = zs.msg != nullptr ? zs.msg : "truncated or corrupt data";
  inflateEnd(&zs);
  if (status != Z_STREAM_END) throw ParseError(path, 0, "corrupt gzip file (" + reason + ")");
  return out;
}
#endif

}  // namespace

ParseError::ParseError(const std::string& source, std::size_t line, const std::string& problem)
    : UsageError(format_message(source, line, problem)),
      source_(source),
      line_(line),
      problem_(problem) {}

bool gzip_supported() {
#if defined(CUDALAB_HAVE_ZLIB)
  return true;
#else
  return false;
#endif
}

std::string read_stream_text(std::istream& in) {
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string read_file_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ParseError(path, 0, "is a folder, not a file");
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw ParseError(path, 0, std::string("cannot open file (") + std::strerror(errno) + ")");
  std::string bytes = read_stream_text(file);
  if (file.bad()) throw ParseError(path, 0, "read error");
  if (!has_gzip_magic(bytes)) return bytes;
#if defined(CUDALAB_HAVE_ZLIB)
  return gunzip(path, bytes);
#else
  throw ParseError(path, 0,
                   "gzip-compressed, and this build has no zlib: gunzip the file first "
                   "(or install zlib1g-dev and reconfigure)");
#endif
}

}  // namespace cudalab::sparse
