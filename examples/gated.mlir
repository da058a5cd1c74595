// A gated (GLA) layer with a runtime prefix length and a carried state:
// per-key-dim decays g <= 0, the state of the previous chunk in, the state
// after this one out. Sequence length and batch are dynamic.
// linea-example: j=40
func.func @gated_layer(%q: tensor<?x2x160x16xf32>, %k: tensor<?x2x160x16xf32>,
                       %v: tensor<?x2x160x24xf32>, %g: tensor<?x2x160x16xf32>,
                       %s0: tensor<?x2x16x24xf32>, %j: index)
    -> (tensor<?x2x160x24xf32>, tensor<?x2x16x24xf32>) {
  %o, %s = linea.gated_linear_attention %q, %k, %v, %g init(%s0) mask = prefix(%j)
      scale = 0.25
      : tensor<?x2x160x16xf32>, tensor<?x2x160x16xf32>, tensor<?x2x160x24xf32>,
        tensor<?x2x160x16xf32>, tensor<?x2x16x24xf32>
      -> tensor<?x2x160x24xf32>, tensor<?x2x16x24xf32>
  return %o, %s : tensor<?x2x160x24xf32>, tensor<?x2x16x24xf32>
}
