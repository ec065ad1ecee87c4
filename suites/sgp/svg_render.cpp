// File: suites/sgp/svg_render.cpp
// librsvg rendering to RGBA; see svg_render.h.
#include "suites/sgp/svg_render.h"

#include <cairo.h>
#include <librsvg/rsvg.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace cb::sgp {

Raster RenderSvg(std::string_view svg, int width, int height) {
  if (width < 1 || height < 1 || width > 8192 || height > 8192)
    throw std::invalid_argument("render size must be in [1, 8192]");
  GError* error = nullptr;
  RsvgHandle* handle = rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &error);
  if (handle == nullptr) {
    const std::string why = error != nullptr ? error->message : "unknown error";
    if (error != nullptr) g_error_free(error);
    throw std::runtime_error("malformed SVG: " + why);
  }
  std::unique_ptr<RsvgHandle, void (*)(gpointer)> handle_owner(handle, g_object_unref);
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  std::unique_ptr<cairo_surface_t, void (*)(cairo_surface_t*)> surface_owner(surface, cairo_surface_destroy);
  cairo_t* cr = cairo_create(surface);
  std::unique_ptr<cairo_t, void (*)(cairo_t*)> cr_owner(cr, cairo_destroy);
  const RsvgRectangle viewport{0, 0, static_cast<double>(width), static_cast<double>(height)};
  if (!rsvg_handle_render_document(handle, cr, &viewport, &error)) {
    const std::string why = error != nullptr ? error->message : "unknown error";
    if (error != nullptr) g_error_free(error);
    throw std::runtime_error("malformed SVG: " + why);
  }
  cairo_surface_flush(surface);
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cairo: ") + cairo_status_to_string(cairo_status(cr)));
  // Cairo's ARGB32: native-endian 32-bit words, premultiplied alpha.
  Raster r;
  r.width = width;
  r.height = height;
  r.rgba.resize(static_cast<size_t>(width) * height * 4);
  const unsigned char* data = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  for (int y = 0; y < height; ++y) {
    const auto* row = reinterpret_cast<const uint32_t*>(data + static_cast<size_t>(y) * stride);
    uint8_t* out = &r.rgba[static_cast<size_t>(y) * width * 4];
    for (int x = 0; x < width; ++x) {
      const uint32_t p = row[x];
      const uint32_t a = p >> 24;
      uint32_t rr = (p >> 16) & 0xff, gg = (p >> 8) & 0xff, bb = p & 0xff;
      if (a != 0 && a != 255) {  // un-premultiply, rounded
        rr = (rr * 255 + a / 2) / a, gg = (gg * 255 + a / 2) / a, bb = (bb * 255 + a / 2) / a;
      }
      out[4 * x + 0] = static_cast<uint8_t>(rr > 255 ? 255 : rr);
      out[4 * x + 1] = static_cast<uint8_t>(gg > 255 ? 255 : gg);
      out[4 * x + 2] = static_cast<uint8_t>(bb > 255 ? 255 : bb);
      out[4 * x + 3] = static_cast<uint8_t>(a);
    }
  }
  return r;
}

}  // namespace cb::sgp
