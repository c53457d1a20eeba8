# Synthetic: extension builds and the layers around them.
FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS archlist
RUN pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cu124 && \
    git clone https://github.com/facebookresearch/detectron2 && \
    cd detectron2 && FORCE_CUDA=1 python setup.py install

FROM ubuntu:22.04 AS condart
RUN conda install -y cudatoolkit=11.8 && pip install flash-attn

FROM ubuntu:22.04 AS pipnvcc
ENV TORCH_CUDA_ARCH_LIST="8.0"
RUN pip install nvidia-cuda-nvcc-cu12 && pip install flash-attn

FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS ldconfig
RUN ldconfig
COPY libfoo.so /usr/local/lib/

FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS twice
RUN apt-get update && apt-get install -y cuda-toolkit-11-8

FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS final
ENV NVIDIA_DISABLE_REQUIRE=1
ENV NVIDIA_DRIVER_CAPABILITIES=utility
CMD ["torchrun", "--nproc-per-node", "8", "train.py"]
