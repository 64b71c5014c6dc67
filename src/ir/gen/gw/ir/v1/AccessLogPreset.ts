// Original file: proto/gw/ir/v1/ir.proto

export const AccessLogPreset = {
  ACCESS_LOG_PRESET_DEFAULT: 'ACCESS_LOG_PRESET_DEFAULT',
  OTEL: 'OTEL',
} as const;

export type AccessLogPreset =
  | 'ACCESS_LOG_PRESET_DEFAULT'
  | 0
  | 'OTEL'
  | 1

export type AccessLogPreset__Output = typeof AccessLogPreset[keyof typeof AccessLogPreset]
