// Image files for lab 04, through stb: PNG, JPEG, PGM/PPM (and the other formats stb_image
// reads) in, PNG out. 8 bits per value, channels interleaved, rows top to bottom.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab04 {

struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;                  // 1 (grayscale) or 3 (RGB)
  std::vector<std::uint8_t> pixels;  // width * height * channels
};

// A file that cannot be read as an image: the message names the file and stb's reason.
class ImageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Loads an image as grayscale when it is stored gray (with or without alpha), RGB otherwise (an
// alpha channel is dropped). want_channels 1 or 3 forces that many (stb converts).
Image load_image(const std::string& path, int want_channels = 0);

// Writes a PNG; throws ImageError when the file cannot be written.
void save_png(const std::string& path, const Image& image);

}  // namespace lab04
