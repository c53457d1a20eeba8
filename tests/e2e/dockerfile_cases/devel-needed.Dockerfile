# Synthetic: flash-attn compiles its CUDA extension; runtime images have no nvcc.
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04
ENV TORCH_CUDA_ARCH_LIST="8.0;9.0"
RUN pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cu124
RUN pip install flash-attn --no-build-isolation
