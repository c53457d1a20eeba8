/* x */
#define CUDA_VERSION_MAJOR 13
#define CUDA_VERSION	   13000
