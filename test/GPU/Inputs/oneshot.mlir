func.func @oneshot(%q: tensor<4x1024x64xf32>, %k: tensor<4x1024x64xf32>, %v: tensor<4x1024x64xf32>) -> tensor<4x1024x64xf32> {
  %o = linea.linear_attention %q, %k, %v mask = none : tensor<4x1024x64xf32>, tensor<4x1024x64xf32>, tensor<4x1024x64xf32> -> tensor<4x1024x64xf32>
  return %o : tensor<4x1024x64xf32>
}
