# Synthetic: tags that name no fixed image.
FROM nvidia/cuda:12.1-devel AS build
RUN nvcc --version
FROM pytorch/pytorch
COPY --from=build /usr/local/cuda/version.json /tmp/
