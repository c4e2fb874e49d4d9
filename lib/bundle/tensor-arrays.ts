/**
 * The element types of the bundle protocol and their typed-array classes: the one thing the random
 * stream needs from the codec (codec.ts re-exports it). A module of its own, so that loading the
 * stream for a make does not load the codec's file I/O with it (see cli/build-protocol-route.mjs).
 */

/** The element types of the bundle protocol and their typed-array classes. */
export const TENSOR_ARRAYS = {
  i8: Int8Array,
  i16: Int16Array,
  i32: Int32Array,
  i64: BigInt64Array,
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  u64: BigUint64Array,
  f32: Float32Array,
  f64: Float64Array,
} as const;

/** An element type name: i8 i16 i32 i64 u8 u16 u32 u64 f32 f64. */
export type ElementType = keyof typeof TENSOR_ARRAYS;

/** A tensor in memory: the typed array of its element type. */
export type Tensor = InstanceType<(typeof TENSOR_ARRAYS)[ElementType]>;
