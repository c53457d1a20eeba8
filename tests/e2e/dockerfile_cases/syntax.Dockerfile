# Synthetic: BuildKit rejects the first unknown instruction.
FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04
RUN echo ok
RUNN echo typo
COPI . /app
