// Original file: proto/gw/ir/v1/upstream.proto

export const HttpVersion = {
  /**
   * same as HTTP1
   */
  HTTP_VERSION_UNSPECIFIED: 'HTTP_VERSION_UNSPECIFIED',
  HTTP1: 'HTTP1',
  HTTP2: 'HTTP2',
} as const;

export type HttpVersion =
  /**
   * same as HTTP1
   */
  | 'HTTP_VERSION_UNSPECIFIED'
  | 0
  | 'HTTP1'
  | 1
  | 'HTTP2'
  | 2

export type HttpVersion__Output = typeof HttpVersion[keyof typeof HttpVersion]
