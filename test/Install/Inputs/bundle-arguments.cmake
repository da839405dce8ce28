# qmat_add_bundle's refusals, one per CASE, before it adds anything:
#   cmake -DQMAT_BUNDLE=<prefix>/lib/cmake/qmat/qmatBundle.cmake -DCASE=<case> -P
# Run as a script, no language is enabled, so the last case gets as far as
# the check for C++.
include("${QMAT_BUNDLE}")
if(CASE STREQUAL "no-module")
  qmat_add_bundle(b TARGETS sm_90)
elseif(CASE STREQUAL "no-targets")
  qmat_add_bundle(b MODULE m.mlir)
elseif(CASE STREQUAL "stray")
  qmat_add_bundle(b m.mlir TARGETS sm_90)
elseif(CASE STREQUAL "both-types")
  qmat_add_bundle(b MODULE m.mlir TARGETS sm_90 STATIC SHARED)
elseif(CASE STREQUAL "name-prefix")
  qmat_add_bundle(my-model MODULE m.mlir TARGETS sm_90)
elseif(CASE STREQUAL "bad-prefix")
  qmat_add_bundle(b MODULE m.mlir TARGETS sm_90 PREFIX 9lives)
elseif(CASE STREQUAL "unknown-vendor")
  qmat_add_bundle(b MODULE m.mlir TARGETS sm_90 tpu_v5)
elseif(CASE STREQUAL "mixed")
  qmat_add_bundle(b MODULE m.mlir TARGETS sm_90 gfx942)
elseif(CASE STREQUAL "own-option")
  qmat_add_bundle(b MODULE m.mlir TARGETS sm_90 OPTIONS --emit=ptx -o=out)
elseif(CASE STREQUAL "no-cxx")
  qmat_add_bundle(b MODULE m.mlir TARGETS gfx942 PREFIX model
                  OPTIONS --emit ptx --quiet)
else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()
