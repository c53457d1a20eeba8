version='0.16.3'
installed_ops={'async_io': False, 'fused_adam': True, 'cpu_adam': 1}
torch_info={'version': '2.5', 'cuda_version': '12.4', 'nccl_version': [2, 21]}
