# Installation (issue 17): `cmake --install build [--prefix P]` lays out
#   bin/packcheck                                  the CLI (linked with the static library)
#   lib/libpackcheck.a, lib/libpackcheck.so.X.Y.Z  the library, soname libpackcheck.so.<major>
#   include/packcheck.h                            the public API
#   lib/pkgconfig/packcheck.pc                     relocatable (${pcfiledir}), with an rpath to its lib/
#   lib/pkgconfig/packcheck-static.pc              the same for libpackcheck.a
#   lib/cmake/packcheck/                           find_package(packcheck): packcheck::packcheck (shared),
#                                                  packcheck::packcheck_static
#   share/packcheck/fixtures/                      the corpus, found by the binary relative to itself
# Components: cli, corpus, dev (the wheel takes cli and corpus only).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# One set of objects for both libraries: position-independent so the shared library can use them
# (the static library, which the CLI and the tests link, keeps its target name).
set_target_properties(packcheck_lib PROPERTIES POSITION_INDEPENDENT_CODE ON OUTPUT_NAME packcheck
  EXPORT_NAME packcheck_static)

# The build-tree binary may fall back to the source corpus; an installed copy never does (cli/corpus_path.c).
target_compile_definitions(packcheck PRIVATE PC_BUILD_BINDIR="${CMAKE_BINARY_DIR}")

install(TARGETS packcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/fixtures/ DESTINATION ${CMAKE_INSTALL_DATADIR}/packcheck/fixtures
  COMPONENT corpus)

set(PC_EXPORT_TARGETS packcheck_lib)
# libFuzzer-instrumented objects need the fuzzer runtime at link time: no shared library then.
if(NOT PACKCHECK_FUZZ)
  add_library(packcheck_shared SHARED $<TARGET_OBJECTS:packcheck_lib>)
  set_target_properties(packcheck_shared PROPERTIES OUTPUT_NAME packcheck EXPORT_NAME packcheck
    VERSION ${PROJECT_VERSION} SOVERSION 1) # the ABI: bumped with PACKCHECK_API_VERSION changes that break it
  target_include_directories(packcheck_shared PUBLIC
    $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/validator/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(packcheck_shared PRIVATE PkgConfig::CJSON OpenSSL::Crypto Threads::Threads m)
  if(CURL_FOUND)
    target_link_libraries(packcheck_shared PRIVATE PkgConfig::CURL)
  endif()
  if(SQLITE3_FOUND)
    target_link_libraries(packcheck_shared PRIVATE PkgConfig::SQLITE3)
  endif()
  list(APPEND PC_EXPORT_TARGETS packcheck_shared)
endif()

install(TARGETS ${PC_EXPORT_TARGETS} EXPORT packcheckTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev NAMELINK_COMPONENT dev)
install(FILES ${CMAKE_SOURCE_DIR}/validator/include/packcheck.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT dev)

# The optional dependencies (URL inputs, the verdict cache), when this build has them.
set(PC_OPTIONAL_REQUIRES "")
set(PC_OPTIONAL_LIBS "") # packcheck-static.pc: linked as shared libraries (their own static deps are not installed)
set(PC_WITH_CURL FALSE)
set(PC_WITH_SQLITE FALSE)
if(CURL_FOUND)
  string(APPEND PC_OPTIONAL_REQUIRES " libcurl")
  string(APPEND PC_OPTIONAL_LIBS " -lcurl")
  set(PC_WITH_CURL TRUE)
endif()
if(SQLITE3_FOUND)
  string(APPEND PC_OPTIONAL_REQUIRES " sqlite3")
  string(APPEND PC_OPTIONAL_LIBS " -lsqlite3")
  set(PC_WITH_SQLITE TRUE)
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/packcheck.pc.in ${CMAKE_BINARY_DIR}/packcheck.pc @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/packcheck-static.pc.in ${CMAKE_BINARY_DIR}/packcheck-static.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/packcheck.pc ${CMAKE_BINARY_DIR}/packcheck-static.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

set(PC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/packcheck)
install(EXPORT packcheckTargets NAMESPACE packcheck:: DESTINATION ${PC_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/packcheckConfig.cmake.in
  ${CMAKE_BINARY_DIR}/packcheckConfig.cmake INSTALL_DESTINATION ${PC_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/packcheckConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/packcheckConfig.cmake ${CMAKE_BINARY_DIR}/packcheckConfigVersion.cmake
  DESTINATION ${PC_CMAKE_DIR} COMPONENT dev)

# The install itself, tested: into a temp prefix, then a small C program built against it with
# pkg-config and with find_package. Sanitizer builds are skipped: their objects need the
# sanitizer runtime linked first in every consumer, which is not what a user gets.
if(NOT PACKCHECK_SANITIZE AND NOT PACKCHECK_FUZZ)
  add_test(NAME install_consumer COMMAND sh ${CMAKE_SOURCE_DIR}/validator/tests/install/install_consumer.sh
    ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${CMAKE_C_COMPILER} ${CMAKE_COMMAND})
  set_tests_properties(install_consumer PROPERTIES TIMEOUT 600)
endif()
