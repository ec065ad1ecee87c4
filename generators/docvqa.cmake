# docvqa (docvqa.cpp): FreeType draws the text in DejaVu Sans Mono
# (fonts-dejavu-core), found at configure time; CB_DEJAVU_MONO_FONT at run
# time overrides the path.
pkg_check_modules(FREETYPE REQUIRED IMPORTED_TARGET freetype2)
find_file(CB_DEJAVU_MONO_FONT DejaVuSansMono.ttf PATH_SUFFIXES share/fonts/truetype/dejavu REQUIRED)
target_link_libraries(cb_generators PRIVATE PkgConfig::FREETYPE)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/docvqa.cpp PROPERTIES COMPILE_DEFINITIONS
                            "CB_DEJAVU_MONO_FONT=\"${CB_DEJAVU_MONO_FONT}\"")
