# VideoNIAH (videoniah.cpp): FreeType draws the subtitle (DejaVu Sans) and the
# emoji pictures (Noto Color Emoji); Debian's font files, found at configure time.
pkg_check_modules(FREETYPE REQUIRED IMPORTED_TARGET freetype2)
find_file(CB_DEJAVU_FONT DejaVuSans.ttf PATH_SUFFIXES share/fonts/truetype/dejavu REQUIRED)
find_file(CB_EMOJI_FONT NotoColorEmoji.ttf PATH_SUFFIXES share/fonts/truetype/noto REQUIRED)
target_link_libraries(cb_generators PRIVATE PkgConfig::FREETYPE)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/videoniah.cpp PROPERTIES COMPILE_DEFINITIONS
                            "CB_DEJAVU_FONT=\"${CB_DEJAVU_FONT}\";CB_EMOJI_FONT=\"${CB_EMOJI_FONT}\"")
