# The CUDA backend: libember_cuda.so, built when a CUDA compiler and cuBLAS are found. libember.so loads it
# at run time (src/core/cuda_hooks.cpp), so the CPU library never needs the CUDA libraries.
if(NOT EMBER_CUDA)
  return()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  message(STATUS "ember: no CUDA compiler found; building without the CUDA backend")
  return()
endif()
# Hopper (H100/H200) by default; pass -DCMAKE_CUDA_ARCHITECTURES=... for other GPUs.
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 90)
endif()
enable_language(CUDA)
# nvcc's -O is the host compiler's level (the device code is optimised either way): the host side of a .cu is launch
# glue, compiled ~25% faster at -O1; the plan it builds per launch comes from the library, at -O3 (make_plan).
string(REPLACE "-O3" "-O1" CMAKE_CUDA_FLAGS_RELEASE "${CMAKE_CUDA_FLAGS_RELEASE}")
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
find_package(CUDAToolkit REQUIRED)
if(CCACHE_PROGRAM)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${EMBER_CCACHE})
endif()

# cuBLAS and cuBLASLt: the toolkit's, else NVIDIA's PyPI wheel (nvidia-cublas: site-packages/nvidia/cu13).
if(NOT Python_EXECUTABLE)
  find_package(Python COMPONENTS Interpreter)
endif()
if(Python_EXECUTABLE)
  execute_process(COMMAND "${Python_EXECUTABLE}" -c
    "import importlib.util as u; s = u.find_spec('nvidia.cu13'); print(next(iter(s.submodule_search_locations)) if s else '')"
    OUTPUT_VARIABLE EMBER_NVIDIA_WHEEL_DIR OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
find_path(EMBER_CUBLAS_INCLUDE cublasLt.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ${EMBER_NVIDIA_WHEEL_DIR}/include)
find_library(EMBER_CUBLAS_LIBRARY NAMES cublas libcublas.so.13 HINTS ${CUDAToolkit_LIBRARY_DIR} ${EMBER_NVIDIA_WHEEL_DIR}/lib)
find_library(EMBER_CUBLASLT_LIBRARY NAMES cublasLt libcublasLt.so.13 HINTS ${CUDAToolkit_LIBRARY_DIR} ${EMBER_NVIDIA_WHEEL_DIR}/lib)
if(NOT EMBER_CUBLAS_INCLUDE OR NOT EMBER_CUBLAS_LIBRARY OR NOT EMBER_CUBLASLT_LIBRARY)
  message(WARNING "ember: cuBLAS not found (pip install nvidia-cublas); building without the CUDA backend")
  return()
endif()
get_filename_component(EMBER_CUBLAS_DIR ${EMBER_CUBLAS_LIBRARY} DIRECTORY)
# cuDNN (convolutions): the system's, else NVIDIA's PyPI wheel (nvidia-cudnn-cu13: site-packages/nvidia/cudnn).
if(Python_EXECUTABLE)
  execute_process(COMMAND "${Python_EXECUTABLE}" -c
    "import importlib.util as u; s = u.find_spec('nvidia.cudnn'); print(next(iter(s.submodule_search_locations)) if s else '')"
    OUTPUT_VARIABLE EMBER_CUDNN_WHEEL_DIR OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
find_path(EMBER_CUDNN_INCLUDE cudnn.h HINTS ${EMBER_CUDNN_WHEEL_DIR}/include ${CUDAToolkit_INCLUDE_DIRS})
find_library(EMBER_CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 HINTS ${EMBER_CUDNN_WHEEL_DIR}/lib ${CUDAToolkit_LIBRARY_DIR})
if(NOT EMBER_CUDNN_INCLUDE OR NOT EMBER_CUDNN_LIBRARY)
  message(WARNING "ember: cuDNN not found (pip install nvidia-cudnn-cu13); building without the CUDA backend")
  return()
endif()
get_filename_component(EMBER_CUDNN_DIR ${EMBER_CUDNN_LIBRARY} DIRECTORY)
message(STATUS "ember: CUDA backend for architectures ${CMAKE_CUDA_ARCHITECTURES}, cuBLAS in ${EMBER_CUBLAS_DIR}, "
  "cuDNN in ${EMBER_CUDNN_DIR}")

# Unity units per folder (cmake/unity.cmake): host-only .cpp files and .cu files apart.
set(EMBER_CUDA_SOURCES)
foreach(folder src/cuda src/cuda/binary src/cuda/nn src/cuda/optim src/cuda/order src/cuda/reduce src/cuda/unary)
  foreach(extension cpp cu)
    file(GLOB sources CONFIGURE_DEPENDS ${folder}/*.${extension})
    set(batch ${EMBER_UNITY_BATCH})
    if(extension STREQUAL "cu")
      set(batch ${EMBER_UNITY_BATCH_CUDA})
    endif()
    ember_unity_units(units ${batch} "${sources}")
    list(APPEND EMBER_CUDA_SOURCES ${units})
  endforeach()
endforeach()
add_library(ember_cuda SHARED ${EMBER_CUDA_SOURCES})
target_include_directories(ember_cuda PRIVATE ${EMBER_CUBLAS_INCLUDE} ${EMBER_CUDNN_INCLUDE} ${CUDAToolkit_INCLUDE_DIRS})
target_link_libraries(ember_cuda PRIVATE ember CUDA::cudart_static ${EMBER_CUBLAS_LIBRARY} ${EMBER_CUBLASLT_LIBRARY}
  ${EMBER_CUDNN_LIBRARY})
# Element functions (src/functors) are constexpr-friendly host code called from kernels.
target_compile_options(ember_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr --extended-lambda
  -Xcompiler=-fno-semantic-interposition>)
# The backend exports nothing (it registers itself as it loads); its static CUDA runtime stays private, beside
# another framework's in the same process.
set_target_properties(ember_cuda PROPERTIES CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden
  CUDA_RUNTIME_LIBRARY Static BUILD_RPATH "$ORIGIN;${EMBER_CUBLAS_DIR};${EMBER_CUDNN_DIR}"
  INSTALL_RPATH "$ORIGIN;${EMBER_CUBLAS_DIR};${EMBER_CUDNN_DIR}")
target_link_options(ember_cuda PRIVATE -Wl,--exclude-libs,ALL)
