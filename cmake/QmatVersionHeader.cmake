# Writes Version.h from Version.h.in with the source tree's commit as it is
# now (`git describe --always --dirty`, or "unknown"), so that a rebuild after
# a new commit reports that commit. Run at build time with -P; configure_file
# leaves the file alone when nothing changed, so nothing recompiles then.
# Expects IN, OUT, SOURCE_DIR, QMAT_VERSION and GIT_EXECUTABLE (may be empty).
set(QMAT_GIT_DESCRIBE unknown)
if(GIT_EXECUTABLE)
  execute_process(
    COMMAND ${GIT_EXECUTABLE} describe --always --dirty
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE describe
    RESULT_VARIABLE result
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(result EQUAL 0 AND NOT describe STREQUAL "")
    set(QMAT_GIT_DESCRIBE ${describe})
  endif()
endif()
configure_file(${IN} ${OUT} @ONLY)
