# Synthetic: a devel final stage that compiles nothing.
FROM nvidia/cuda:12.4.1-devel-ubuntu22.04
RUN pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/cu124
COPY app.py /app/
CMD ["python", "/app/app.py"]
