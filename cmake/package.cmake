# The installed package: one library, libgguf, made of the layers' objects (compiled once,
# position-independent, hidden visibility except the public API).
#
#   cmake --install build [--prefix P]     include/gguf/*.h, lib/libgguf.a, and with
#                                          -DBUILD_SHARED_LIBS=ON lib/libgguf.so.VERSION,
#                                          lib/cmake/gguf/ggufConfig.cmake, lib/pkgconfig/gguf.pc
#   cmake --install build --component shared   adds the shared library to a static build's
#                                          install (after `cmake --build build --target gguf_shared`)
#
# Consumers: find_package(gguf CONFIG REQUIRED) + target_link_libraries(app gguf::gguf)
# (the shared library when installed, else the static one; gguf::gguf_static always), or
# `pkg-config --cflags --libs gguf` (add --static for libgguf.a). The private dependency
# (PCRE2) is link-only: no consumer sees its include paths. libcurl is not linked: it is
# loaded at run time for remote files (dlopen of libcurl.so.4, or $GGUF_LIBCURL).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# the layers: whatever the internal `gguf` target links (CMakeLists.txt)
get_target_property(gguf_package_layers gguf INTERFACE_LINK_LIBRARIES)
list(FILTER gguf_package_layers INCLUDE REGEX "^gguf_")
set(gguf_package_objects)
set(gguf_package_deps)
foreach(layer ${gguf_package_layers})
  get_target_property(kind ${layer} TYPE)
  if(NOT kind STREQUAL "INTERFACE_LIBRARY")
    list(APPEND gguf_package_objects $<TARGET_OBJECTS:${layer}>)
  endif()
  get_target_property(deps ${layer} INTERFACE_LINK_LIBRARIES)
  foreach(d ${deps})
    if(d AND NOT d MATCHES "^gguf_")
      list(APPEND gguf_package_deps ${d})
    endif()
  endforeach()
endforeach()
list(REMOVE_DUPLICATES gguf_package_deps)

function(gguf_package_library target kind)
  add_library(${target} ${kind} ${ARGN} ${gguf_package_objects})
  set_target_properties(${target} PROPERTIES OUTPUT_NAME gguf)
  target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                                 $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${target} INTERFACE cxx_std_20)
  target_link_libraries(${target} PRIVATE ${gguf_package_deps})
endfunction()

gguf_package_library(gguf_static STATIC)
set_target_properties(gguf_static PROPERTIES EXPORT_NAME gguf_static)
if(BUILD_SHARED_LIBS)
  gguf_package_library(gguf_shared SHARED)
else()
  gguf_package_library(gguf_shared SHARED EXCLUDE_FROM_ALL)
endif()
set_target_properties(gguf_shared PROPERTIES EXPORT_NAME gguf_shared VERSION ${PROJECT_VERSION}
                                             SOVERSION ${PROJECT_VERSION})

set(gguf_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/gguf)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gguf DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT devel FILES_MATCHING PATTERN "*.h")
install(TARGETS gguf_static EXPORT gguf-static-targets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
install(EXPORT gguf-static-targets NAMESPACE gguf:: DESTINATION ${gguf_cmake_dir} COMPONENT devel)
if(BUILD_SHARED_LIBS)
  set(gguf_shared_optional)
else()
  set(gguf_shared_optional EXCLUDE_FROM_ALL)
endif()
install(TARGETS gguf_shared EXPORT gguf-shared-targets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        COMPONENT shared ${gguf_shared_optional})
install(EXPORT gguf-shared-targets NAMESPACE gguf:: DESTINATION ${gguf_cmake_dir} COMPONENT shared
        ${gguf_shared_optional})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ggufConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/ggufConfig.cmake INSTALL_DESTINATION ${gguf_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/ggufConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/ggufConfig.cmake ${PROJECT_BINARY_DIR}/package/ggufConfigVersion.cmake
        DESTINATION ${gguf_cmake_dir} COMPONENT devel)

# pkg-config: the private libraries only in Libs.private (no Requires.private, whose
# Cflags pkg-config would hand to consumers).
set(gguf_pc_private "")
foreach(lib ${PCRE2_32_LIBRARIES})
  string(APPEND gguf_pc_private " -l${lib}")
endforeach()
string(APPEND gguf_pc_private " -ldl -pthread")  # libcurl is loaded at run time (dlopen)
# relocatable: the prefix is found from the .pc file's own folder (cmake --install --prefix P)
file(RELATIVE_PATH gguf_pc_up /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/gguf.pc.in ${PROJECT_BINARY_DIR}/package/gguf.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/gguf.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT devel)
