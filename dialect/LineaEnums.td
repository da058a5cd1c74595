//===- LineaEnums.td - enum attributes of Linea ops ------------*- tablegen -*-===//
//
// Each enum is an attribute of the dialect, so the generic form and every
// diagnostic spell it out (`#linea.mask<causal>`), never as an integer.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_ENUMS_TD
#define LINEA_ENUMS_TD

include "LineaDialect.td"
include "mlir/IR/EnumAttr.td"

def Linea_Mask : I32EnumAttr<"Mask", "which keys a query row sees", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"causal", 1>,
    I32EnumAttrCase<"prefix", 2>
  ]> {
  let cppNamespace = "::mlir::linea";
  let genSpecializedAttr = 0;
}
def Linea_MaskAttr : EnumAttr<Linea_Dialect, Linea_Mask, "mask"> {
  let assemblyFormat = "`<` $value `>`";
}

def Linea_FeatureMap : I32EnumAttr<"FeatureMap",
    "the feature map phi applied to queries and keys", [
    I32EnumAttrCase<"identity", 0>,
    I32EnumAttrCase<"elu_plus_one", 1>,
    I32EnumAttrCase<"relu", 2>
  ]> {
  let cppNamespace = "::mlir::linea";
  let genSpecializedAttr = 0;
}
def Linea_FeatureMapAttr : EnumAttr<Linea_Dialect, Linea_FeatureMap, "feature_map"> {
  let assemblyFormat = "`<` $value `>`";
}

def Linea_FormKind : I32EnumAttr<"FormKind",
    "the algorithm an op is rewritten into", [
    I32EnumAttrCase<"oneshot", 0>,
    I32EnumAttrCase<"chunked", 1>,
    I32EnumAttrCase<"quadratic", 2>,
    I32EnumAttrCase<"scan", 3>,
    I32EnumAttrCase<"blocked_scan", 4>,
    I32EnumAttrCase<"chunk_parallel", 5>
  ]> {
  let cppNamespace = "::mlir::linea";
  let genSpecializedAttr = 0;
}

#endif // LINEA_ENUMS_TD
