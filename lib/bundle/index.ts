/** The bundle protocol runtime: marker, stream, codec, work directory. See lib/bundle/README.md. */
export {loadBundle, canonicalSignature, signatureFingerprint, bindingBytes, bindingLength, bindingShape, MARKER} from './bundle.js';
export type {Bundle, Binding, PointParam, LoadOptions} from './bundle.js';
export {parsePoint, parseSeeds, parseSeedList, MAX_CASES} from './point.js';
export type {Point, Seed} from './point.js';
export {
  makeWorkDir,
  writeExpected,
  verifyWorkDir,
  readManifest,
  bundleInfo,
  caseName,
  caseSizes,
  checkTensors,
} from './workdir.js';
export type {Manifest, Verdict, Verdicts, Tensors, MakeOptions, MakeProgress, Info} from './workdir.js';
export {
  readTensor,
  writeTensor,
  writeFileAtomic,
  elementWidth,
  isElementType,
  arrayName,
  tensorBytes,
  TensorLengthError,
  compareFiles,
  countNaN,
  TENSOR_ARRAYS,
  ELEMENT_TYPES,
} from './codec.js';
export type {ElementType, Tensor} from './codec.js';
export {elementValue} from './exact.js';
export type {FirstWrong} from './exact.js';
export {Stream, bitLength} from './stream.js';
export type {IntType} from './stream.js';
export {BundleError, describeThrown} from './errors.js';
export {withAuthored} from './authored.js';
export type {AuthoredOptions} from './authored.js';
