# add_blueprint_library(<name> <sources>... [DEPENDS ...] [LINK_LIBS ...])
#
# An MLIR library that installs into Blueprint's own export set (not into
# MLIRTargets, as add_mlir_library would), so find_package(Blueprint) gives
# Blueprint::<name>. Headers resolve from the source and build trees while
# building and from <prefix>/include once installed.
function(add_blueprint_library name)
  add_mlir_library(${name} ${ARGN} DISABLE_INSTALL EXCLUDE_FROM_LIBMLIR)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(TARGETS ${name}
    EXPORT BlueprintTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY BLUEPRINT_LIBRARIES ${name})
endfunction()

# add_blueprint_doc(<td name> <output name> <docs subfolder> <tblgen command>...)
#
# Generates Markdown documentation from ODS into <build>/docs/<subfolder>.
# The checked-in copy under docs/ is compared with it by a test, so generated
# documentation can never go stale.
function(add_blueprint_doc td_name output_name output_directory command)
  set(LLVM_TARGET_DEFINITIONS ${td_name}.td)
  tablegen(MLIR ${output_name}.md ${command} ${ARGN})
  set(generated ${PROJECT_BINARY_DIR}/docs/${output_directory}${output_name}.md)
  add_custom_command(OUTPUT ${generated}
    COMMAND ${CMAKE_COMMAND} -E copy
      ${CMAKE_CURRENT_BINARY_DIR}/${output_name}.md ${generated}
    DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/${output_name}.md)
  add_custom_target(${output_name}DocGen DEPENDS ${generated})
  add_dependencies(blueprint-doc ${output_name}DocGen)
endfunction()
