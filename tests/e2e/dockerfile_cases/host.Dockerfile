# Synthetic: an image of CUDA 12.8 judged against a host driver.
ARG CUDA=12.8.1
FROM nvidia/cuda:${CUDA}-runtime-ubuntu22.04
CMD ["nvidia-smi"]
