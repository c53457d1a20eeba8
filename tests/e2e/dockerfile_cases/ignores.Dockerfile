# Synthetic: ignore comments.
# cuda-doctor global ignore=dockerfile-shm-advice
# cuda-doctor ignore=dockerfile-tag-unpinned
FROM pytorch/pytorch:latest AS one
FROM nvidia/cuda:12.1-runtime AS two
CMD ["torchrun", "train.py"]
