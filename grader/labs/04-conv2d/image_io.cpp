#include "image_io.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#include <stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

namespace lab04 {

namespace {

// stb_image reads a binary PGM/PPM (P5/P6) whose pixel data is cut short without complaint, filling
// the rest with zeros; so check it ourselves: the header's width, height and maxval must be valid
// numbers and the file must hold width * height * channels bytes (2 each above maxval 255) after
// them. A header is read from the first 4 KiB (a longer one, all comments, is refused). Other
// formats are left to stb, which checks them.
void check_binary_pnm(const std::string& path) {
  // Only the header (magic, three numbers, comments) is parsed; the file's size gives the amount
  // of pixel data, so the pixels are not read here (stb reads them).
  std::ifstream in(path, std::ios::binary);
  std::string bytes(4096, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  if (bytes.size() < 2 || bytes[0] != 'P' || (bytes[1] != '5' && bytes[1] != '6')) return;
  std::error_code ec;
  const auto file_size = static_cast<long long>(std::filesystem::file_size(path, ec));
  if (ec) return;  // stb reports a file it cannot read
  std::size_t pos = 2;
  long long fields[3] = {0, 0, 0};  // width, height, maxval
  for (long long& field : fields) {
    while (pos < bytes.size() &&
           (std::isspace(static_cast<unsigned char>(bytes[pos])) || bytes[pos] == '#')) {
      if (bytes[pos] == '#')
        while (pos < bytes.size() && bytes[pos] != '\n') ++pos;
      else
        ++pos;
    }
    const std::size_t start = pos;
    while (pos < bytes.size() && std::isdigit(static_cast<unsigned char>(bytes[pos])) &&
           pos - start < 10)
      field = field * 10 + (bytes[pos++] - '0');
    if (pos == start || field <= 0)
      throw ImageError("cannot read image '" + path + "': bad PNM header (width, height, maxval)");
  }
  ++pos;  // the single whitespace after maxval
  const long long channels = bytes[1] == '6' ? 3 : 1;
  const long long need = fields[0] * fields[1] * channels * (fields[2] > 255 ? 2 : 1);
  const long long have = std::max(0LL, file_size - static_cast<long long>(pos));
  if (fields[2] > 65535 || have < need)
    throw ImageError("cannot read image '" + path + "': PNM data cut short (" +
                     std::to_string(have) + " of " + std::to_string(need) + " bytes)");
}

}  // namespace

Image load_image(const std::string& path, int want_channels) {
  if (want_channels != 0 && want_channels != 1 && want_channels != 3)
    throw std::invalid_argument("load_image: want_channels must be 0, 1 or 3");
  int w = 0, h = 0, stored = 0;
  if (stbi_info(path.c_str(), &w, &h, &stored) == 0)
    throw ImageError("cannot read image '" + path + "': " + stbi_failure_reason());
  check_binary_pnm(path);
  const int channels = want_channels != 0 ? want_channels : (stored <= 2 ? 1 : 3);
  stbi_uc* data = stbi_load(path.c_str(), &w, &h, &stored, channels);
  if (data == nullptr)
    throw ImageError("cannot read image '" + path + "': " + stbi_failure_reason());
  Image image{w, h, channels, {}};
  image.pixels.assign(data, data + static_cast<std::size_t>(w) * h * channels);
  stbi_image_free(data);
  return image;
}

void save_png(const std::string& path, const Image& image) {
  if (image.width < 1 || image.height < 1 || (image.channels != 1 && image.channels != 3) ||
      image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * image.channels)
    throw std::invalid_argument("save_png: inconsistent image");
  if (static_cast<long long>(image.width) * image.channels > std::numeric_limits<int>::max())
    throw ImageError("cannot write '" + path + "': rows too long for PNG");
  if (stbi_write_png(path.c_str(), image.width, image.height, image.channels, image.pixels.data(),
                     image.width * image.channels) == 0)
    throw ImageError("cannot write image '" + path + "'");
}

}  // namespace lab04
