//===- LineaEnums.td - enum attributes of Linea ops ------------*- tablegen -*-===//

#ifndef LINEA_ENUMS_TD
#define LINEA_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def Linea_MaskAttr : I32EnumAttr<"Mask", "which keys a query row sees", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"causal", 1>,
    I32EnumAttrCase<"prefix", 2>
  ]> {
  let cppNamespace = "::mlir::linea";
}

def Linea_FeatureMapAttr : I32EnumAttr<"FeatureMap",
    "the feature map phi applied to queries and keys", [
    I32EnumAttrCase<"identity", 0>,
    I32EnumAttrCase<"elu_plus_one", 1>,
    I32EnumAttrCase<"relu", 2>
  ]> {
  let cppNamespace = "::mlir::linea";
}

#endif // LINEA_ENUMS_TD
