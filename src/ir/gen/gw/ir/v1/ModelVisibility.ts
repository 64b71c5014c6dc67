// Original file: proto/gw/ir/v1/ir_translate.proto

export const ModelVisibility = {
  /**
   * same as PUBLIC
   */
  MODEL_VISIBILITY_UNSPECIFIED: 'MODEL_VISIBILITY_UNSPECIFIED',
  PUBLIC: 'PUBLIC',
  INTERNAL: 'INTERNAL',
} as const;

export type ModelVisibility =
  /**
   * same as PUBLIC
   */
  | 'MODEL_VISIBILITY_UNSPECIFIED'
  | 0
  | 'PUBLIC'
  | 1
  | 'INTERNAL'
  | 2

export type ModelVisibility__Output = typeof ModelVisibility[keyof typeof ModelVisibility]
