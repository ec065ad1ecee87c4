# The Zlib score of the membership-inference reference (mia.cpp).
find_package(ZLIB REQUIRED)
target_link_libraries(cb_reference PRIVATE ZLIB::ZLIB)
