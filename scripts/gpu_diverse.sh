#!/usr/bin/env bash
# On the device: suite solutions whose outputs vary in dtype, number and layout (bool, int, fp8, tuples, random),
# correctness only, confined, traced, outputs shared: no honest kernel may be rejected.
export JOBS=${JOBS:-1} SUITE_TASKS=${SUITE_TASKS:-"isclose one_hot quantize_per_tensor_int8 quantize_fp8_e4m3 adam_step
  dropout searchsorted lu_factor eigh glu max_pool2d cumsum dequantize_per_channel_int8 matmul_w4a16 embedding index_add
  grid_sample pixel_shuffle upsample_bilinear2d attention_causal linear_cross_entropy rotary_embedding batch_norm
  count_nonzero prod bernoulli sgd_step huber_loss nan_to_num where atan2 masked_fill take_along_dim conv2d"}
exec bash scripts/gpu_launch_trace.sh suite
