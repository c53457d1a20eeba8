is_cuda_build = True
cuda_version_number = '10.1'
cudnn_version_number = "7"
