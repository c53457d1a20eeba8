# Synthetic: torch builds against the image's CUDA 12.4.
FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS mismatch
ENV TORCH_CUDA_ARCH_LIST="8.0;9.0"
RUN pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu118
RUN pip install flash-attn --no-build-isolation

FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS missing
RUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu117

FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS extra
RUN pip install torch --extra-index-url https://download.pytorch.org/whl/cu121

FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS cpu
RUN pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cpu
