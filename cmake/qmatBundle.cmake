# qmat_add_bundle(<name> MODULE <file.mlir> TARGETS <target>...
#                 [PREFIX <prefix>] [OPTIONS <qmat-aot option>...]
#                 [STATIC | SHARED])
#
# Runs the installed qmat-aot on <file.mlir> at build time (again whenever
# the module or qmat-aot changes) and compiles the launcher it writes into
# the library target <name>. Link <name> and `#include "<prefix>.h"`.
#
#   MODULE   the model, relative to the current source directory (or an
#            OUTPUT of another custom command of this directory).
#   TARGETS  the GPU targets, of one vendor: NVIDIA (sm_90, sm_100a, ...)
#            or AMD (gfx942, gfx950). `qmat-aot --help` lists them.
#   PREFIX   the C symbol prefix and file name (default <name>, so that two
#            bundles of one program never share a symbol).
#   OPTIONS  further qmat-aot options (--emit=ptx, --gemv-max-m=16, ...);
#            -o, --target and --prefix are this function's to set.
#   STATIC / SHARED  the library type (default: BUILD_SHARED_LIBS).
#
# The target's properties QMAT_BUNDLE_DIR, QMAT_BUNDLE_HEADER,
# QMAT_BUNDLE_MANIFEST and QMAT_BUNDLE_PREFIX name what qmat-aot wrote
# (e.g. to install the manifest next to the program).
#
# qmat-aot writes source, not a library: the header, the launcher source with
# the GPU binaries embedded, the manifest and the raw binaries. The launcher
# is compiled here, by the consumer's compiler with the consumer's flags and
# GPU toolkit, rather than by qmat-aot into a prebuilt shared library that
# would be IMPORTED: it then follows the consumer's ABI, sanitizer, PIC and
# static/shared choices, links the same CUDA (or HIP) libraries as the rest
# of the program, and needs nothing from qmat at run time.
#
# NVIDIA bundles find the CUDA toolkit with find_package(CUDAToolkit) (set
# CUDAToolkit_ROOT to choose one); its ptxas builds the cubins, so that the
# binaries and the headers come from one toolkit. AMD bundles find the HIP
# headers and libamdhip64 under $ROCM_PATH, /opt/rocm or the system
# directories (QMAT_HIP_INCLUDE_DIR, QMAT_AMDHIP64_LIBRARY to choose).

function(qmat_add_bundle name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "STATIC;SHARED" "MODULE;PREFIX"
                        "TARGETS;OPTIONS")
  set(where "qmat_add_bundle(${name})")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${where}: unexpected arguments: "
                        "${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_MODULE)
    message(FATAL_ERROR "${where}: MODULE <file.mlir> is required")
  endif()
  if(NOT arg_TARGETS)
    message(FATAL_ERROR "${where}: TARGETS is required: the GPU targets, "
                        "such as sm_90 or gfx942")
  endif()
  if(arg_STATIC AND arg_SHARED)
    message(FATAL_ERROR "${where}: STATIC and SHARED exclude each other")
  endif()
  set(prefix "${name}")
  if(DEFINED arg_PREFIX)
    set(prefix "${arg_PREFIX}")
  endif()
  if(NOT prefix MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${where}: the prefix must be a C identifier, got "
                        "'${prefix}' (pass PREFIX <identifier>)")
  endif()

  # One vendor per bundle: qmat-aot splits mixed targets into two bundles
  # with other file names, which would be two libraries here.
  set(vendor "")
  foreach(target IN LISTS arg_TARGETS)
    if(target MATCHES "^sm_")
      set(this_vendor cuda)
    elseif(target MATCHES "^gfx")
      set(this_vendor hip)
    else()
      message(FATAL_ERROR "${where}: target '${target}' is neither an "
                          "NVIDIA (sm_*) nor an AMD (gfx*) one; "
                          "`qmat-aot --help` lists the targets")
    endif()
    if(vendor AND NOT vendor STREQUAL this_vendor)
      message(FATAL_ERROR "${where}: TARGETS mixes NVIDIA and AMD targets; "
                          "add one bundle per vendor, each with its own name")
    endif()
    set(vendor ${this_vendor})
  endforeach()

  # The options this function derives the outputs from are its own; the
  # others pass through, and a few are looked at for what they add.
  set(quiet TRUE)
  set(cuda_root_given FALSE)
  set(emits_ptx FALSE)
  set(previous "")
  foreach(option IN LISTS arg_OPTIONS)
    if(option MATCHES "^--?(o|target|prefix)(=.*)?$")
      message(FATAL_ERROR "${where}: OPTIONS must not hold '${option}': "
                          "the output directory, TARGETS and PREFIX are set "
                          "by qmat_add_bundle")
    elseif(option MATCHES "^--?quiet(=.*)?$")
      set(quiet FALSE)
    elseif(option MATCHES "^--?cuda-root(=.*)?$")
      set(cuda_root_given TRUE)
    elseif(option MATCHES "^--?emit=ptx$" OR
           (option STREQUAL "ptx" AND previous MATCHES "^--?emit$"))
      set(emits_ptx TRUE)
    endif()
    set(previous "${option}")
  endforeach()

  if(NOT CMAKE_CXX_COMPILER_LOADED)
    message(FATAL_ERROR "${where}: the launcher is C++: enable CXX with "
                        "project(<name> LANGUAGES CXX) or enable_language(CXX)")
  endif()

  get_filename_component(module "${arg_MODULE}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/qmat_bundles/${name}")
  set(header "${dir}/${prefix}.h")
  set(source "${dir}/${prefix}.cpp")
  set(manifest "${dir}/${prefix}.manifest.json")
  if(vendor STREQUAL "cuda")
    set(extension cubin)
  else()
    set(extension hsaco)
  endif()
  set(binaries "")
  foreach(target IN LISTS arg_TARGETS)
    list(APPEND binaries "${dir}/${prefix}.${target}.${extension}")
    if(emits_ptx AND vendor STREQUAL "cuda")
      list(APPEND binaries "${dir}/${prefix}.${target}.ptx")
    endif()
  endforeach()

  set(extra "")
  if(quiet)
    # Progress lines per layer and target would fill the build log.
    list(APPEND extra --quiet)
  endif()
  if(vendor STREQUAL "cuda")
    find_package(CUDAToolkit REQUIRED)
    if(NOT cuda_root_given AND EXISTS "${CUDAToolkit_BIN_DIR}/ptxas")
      get_filename_component(cuda_root "${CUDAToolkit_BIN_DIR}" DIRECTORY)
      list(APPEND extra "--cuda-root=${cuda_root}")
    endif()
  else()
    find_path(QMAT_HIP_INCLUDE_DIR hip/hip_runtime_api.h
              HINTS ENV ROCM_PATH PATHS /opt/rocm PATH_SUFFIXES include)
    find_library(QMAT_AMDHIP64_LIBRARY amdhip64
                 HINTS ENV ROCM_PATH PATHS /opt/rocm PATH_SUFFIXES lib lib64)
    if(NOT QMAT_HIP_INCLUDE_DIR OR NOT QMAT_AMDHIP64_LIBRARY)
      message(FATAL_ERROR "${where}: AMD bundles need the HIP headers "
                          "(hip/hip_runtime_api.h: ${QMAT_HIP_INCLUDE_DIR}) "
                          "and libamdhip64 (${QMAT_AMDHIP64_LIBRARY}); set "
                          "ROCM_PATH, or QMAT_HIP_INCLUDE_DIR and "
                          "QMAT_AMDHIP64_LIBRARY")
    endif()
  endif()

  list(JOIN arg_TARGETS "," target_list)
  add_custom_command(
    OUTPUT "${header}" "${source}" "${manifest}"
    BYPRODUCTS ${binaries}
    COMMAND qmat::qmat-aot "${module}" "--target=${target_list}"
            "--prefix=${prefix}" -o "${dir}" ${extra} ${arg_OPTIONS}
    DEPENDS "${module}" "$<TARGET_FILE:qmat::qmat-aot>"
    COMMENT "qmat-aot: bundle ${name} (${prefix}.h, ${prefix}.cpp) for ${target_list}"
    VERBATIM)

  set(type "")
  if(arg_STATIC)
    set(type STATIC)
  elseif(arg_SHARED)
    set(type SHARED)
  endif()
  add_library(${name} ${type} "${source}" "${header}")
  target_include_directories(${name} PUBLIC "$<BUILD_INTERFACE:${dir}>")
  # The header is C; only the launcher's own source needs C++17.
  target_compile_features(${name} PRIVATE cxx_std_17)
  set_target_properties(${name} PROPERTIES
    POSITION_INDEPENDENT_CODE ON
    QMAT_BUNDLE_DIR "${dir}"
    QMAT_BUNDLE_HEADER "${header}"
    QMAT_BUNDLE_MANIFEST "${manifest}"
    QMAT_BUNDLE_PREFIX "${prefix}")

  if(vendor STREQUAL "cuda")
    # The header declares CUstream (cuda.h), so the driver is public;
    # cuBLASLt is the launcher's own business.
    get_target_property(driver CUDA::cuda_driver IMPORTED_LOCATION)
    if(driver MATCHES "/stubs/")
      # Only a stub libcuda was found (a machine without the driver). Linked
      # by name through its directory, it stays out of the RUNPATH, so that
      # the driver's own libcuda.so.1 is the one loaded at run time.
      get_filename_component(stub_dir "${driver}" DIRECTORY)
      target_include_directories(${name} SYSTEM PUBLIC
                                 ${CUDAToolkit_INCLUDE_DIRS})
      target_link_directories(${name} PUBLIC "${stub_dir}")
      target_link_libraries(${name} PUBLIC -lcuda)
    else()
      target_link_libraries(${name} PUBLIC CUDA::cuda_driver)
    endif()
    target_link_libraries(${name} PRIVATE CUDA::cublasLt)
  else()
    # hipBLASLt is opened at run time (dlopen), so only HIP itself links.
    target_include_directories(${name} SYSTEM PUBLIC "${QMAT_HIP_INCLUDE_DIR}")
    target_compile_definitions(${name} PUBLIC __HIP_PLATFORM_AMD__)
    target_link_libraries(${name} PUBLIC "${QMAT_AMDHIP64_LIBRARY}"
                          PRIVATE ${CMAKE_DL_LIBS})
  endif()
endfunction()
